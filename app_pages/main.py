"""The app's Streamlit script (app.py serves it): the sidebar and the navigation; each page is a script in
page_scripts/ beside it."""

import streamlit as st

from app_pages.shared import server_load, serving
from attnviz import i18n
from attnviz.paths import FAVICON

# The icon is a file of the project's own: a Material icon name makes the browser fetch it from Google's servers.
ICON = str(FAVICON)
# The sidebar's width in pixels: the model picker's names are read whole at this width (a browser test measures them;
# Streamlit's own default cuts "Demo translator Chinese → English" and the longest hub id with an ellipsis).
SIDEBAR_PX = 340
st.set_page_config(page_title="attnviz", page_icon=ICON, layout="wide", initial_sidebar_state=SIDEBAR_PX)
st.set_option("client.toolbarMode", "viewer")  # no developer menu or Deploy button for the people using the app
st.set_option("client.showErrorDetails", "none")  # errors are sentences on the page; a traceback never is
serving.require_server_mode_beyond_loopback()  # before any page loads a model (the server's lifespan did it too)

# The page is drawn before the pages' modules import (plotly, and torch and transformers once a page runs a model:
# seconds, the first time in a process), with a spinner saying what is loading and an empty chart, so that the
# browser fetches its chart library meanwhile (removed once the page has drawn).
preload = st.empty()
with st.spinner(i18n.t("long_loading_libraries", st.query_params.get("lang", "en")), show_time=True):
    with preload:
        server_load.empty_chart("chart_preload")
    from app_pages.shared import figure_export, navigation, opened, session
    from app_pages.shared.sidebar import sidebar

view = session.state()
t = session.tr(view)
navigation_menu = st.navigation(
    [
        st.Page(
            page.script,
            title=t(page.title_key),
            icon=page.icon,
            url_path=page.url_path or None,
            default=not page.url_path,
        )
        for page in navigation.PAGE.values()
    ]
)
with st.sidebar:  # a saved capture shown instead of the model's: said first, on every page
    opened.sidebar_notice(view)
sidebar(view)
with st.sidebar:  # which mode the app runs in; the size of every download, chosen once
    serving.mode_notice(view)
    figure_export.download_size_control(view)
navigation.follow_goto()
try:
    navigation_menu.run()
finally:  # the page's own charts are drawn (or it said why not): the empty one goes
    preload.empty()
session.sync_url(view, navigation.page_at(navigation_menu.url_path))
server_load.first_page_drawn()
