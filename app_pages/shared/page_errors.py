"""Errors on a page: anything that fails becomes a sentence in the page's language, and the rest of the page goes on."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import streamlit as st

from app_pages.shared.state import ViewState
from attnviz import i18n
from attnviz.errors import AttnvizError

log = logging.getLogger("attnviz.app")


@contextmanager
def shown_errors(view: ViewState):
    """Anything that fails inside becomes a sentence on the page; the rest of the page goes on."""
    try:
        yield
    except AttnvizError as error:
        st.error(i18n.error_sentence(error, view.lang), icon=":material/error:")
    except Exception:  # an unexpected failure: a sentence for the person, the traceback for the log
        log.exception("unexpected error while drawing the page")
        st.error(i18n.t("error_unexpected", view.lang), icon=":material/error:")
