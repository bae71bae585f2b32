"""The app's Streamlit script (app.py serves it): the sidebar and the navigation; each page is a file beside it."""

import streamlit as st

from app_pages import common

st.set_page_config(page_title="attnviz", page_icon=":material/hub:", layout="wide")
st.set_option("client.toolbarMode", "viewer")  # no developer menu or Deploy button for the people using the app
st.set_option("client.showErrorDetails", "none")  # errors are sentences on the page; a traceback never is

view = common.state()
t = common.tr(view)
navigation = st.navigation(
    [
        st.Page(common.PAGES["translate"], title=t("page_translate"), icon=":material/translate:", default=True),
        st.Page(common.PAGES["self"], title=t("page_self"), icon=":material/hub:", url_path="self-attention"),
        st.Page(
            common.PAGES["explainer"],
            title=t("page_explainer"),
            icon=":material/school:",
            url_path="how-attention-works",
        ),
        st.Page(common.PAGES["heads"], title=t("page_heads"), icon=":material/grid_view:", url_path="heads"),
    ]
)
common.sidebar(view)
common.follow_goto()
navigation.run()
common.sync_url(view)
