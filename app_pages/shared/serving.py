"""Local mode or server mode: who can reach this app, and what its visitors may load.

Local use listens on loopback only (`.streamlit/config.toml` sets `server.address = "127.0.0.1"`), where a visitor
is the person at this computer and may open any model folder or hub id. Serving others is a deliberate step: an
address beyond loopback (`make serve`, or `--server.address 0.0.0.0`) turns server mode on in this process, whatever
ATTNVIZ_SERVER_MODE or secrets.toml say, so a server is never open to the network with local mode's freedom; its
visitors then load only what attnviz.model.policy allows (the catalogue, the allowlisted hub ids and folders). The
sidebar says which mode the app runs in (`mode_notice`). docs/serving.md tells how to serve a class.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from typing import TYPE_CHECKING

import streamlit as st

from attnviz import i18n, settings
from attnviz.errors import AttnvizError

if TYPE_CHECKING:
    from app_pages.shared.state import ViewState

log = logging.getLogger("attnviz.app")

LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")
SERVER_MODE = settings.variable("server_mode")


def beyond_loopback(address: str | None) -> bool:
    """Whether a server bound to `address` can be reached from other machines: any address but a loopback one
    (empty, None, 0.0.0.0 and :: mean every interface; a host name other than localhost counts as reachable)."""
    address = (address or "").strip().strip("[]")
    if address.lower() in LOOPBACK_NAMES:
        return False
    try:
        return not ipaddress.ip_address(address).is_loopback
    except ValueError:  # empty (every interface) or a host name: reachable, as far as this check can tell
        return True


def served_address() -> str:
    """The address Streamlit binds (its `server.address` option, from the command line or config.toml)."""
    return str(st.get_option("server.address") or "")


def require_server_mode_beyond_loopback(address: str | None = None) -> bool:
    """Turn server mode on in this process when the app listens beyond loopback and it is off; whether it is on.

    Set in the environment, which wins over secrets.toml, so attnviz.model.policy (what `load_model` allows) and
    every page read the same mode."""
    address = served_address() if address is None else address
    if beyond_loopback(address) and os.environ.get(SERVER_MODE, "").strip().lower() not in settings.TRUE_WORDS:
        log.warning("listening on %r, beyond loopback: server mode is on (%s)", address or "*", SERVER_MODE)
        os.environ[SERVER_MODE] = "on"
    return server_mode()


def server_mode() -> bool:
    """Whether server mode is on; a setting that cannot be read counts as on (said on the page by the model picker)."""
    try:
        return settings.current().server_mode
    except AttnvizError:
        return True


def mode_notice(view: ViewState) -> None:
    """The sidebar's line saying which mode the app runs in and what that allows."""
    lang = view.lang
    if not server_mode():
        address = served_address() or "*"
        st.caption(i18n.t("mode_local", lang, address=address), help=i18n.t("mode_local_help", lang))
        return
    try:
        values = settings.current()
        allowed = len(values.allowed_models) + len(values.allowed_dirs)
    except AttnvizError:
        allowed = 0
    st.caption(i18n.t("mode_server", lang, allowed=allowed), help=i18n.t("mode_server_help", lang))
