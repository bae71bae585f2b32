"""Open a capture: a JSON or NPZ file saved by attnviz (the app's downloads, `python -m attnviz capture` on another
machine) is read as hostile input, its provenance shown, and every page then explores it as if just computed."""

import streamlit as st

from app_pages.shared import navigation, opened, session, uploader

view = session.state()
t = session.tr(view)
st.title(t("open_title"))
st.caption(t("open_intro"))
session.link_warnings(view)

limit_mb = opened.upload_limit_bytes() // opened.MIB
uploader.file_uploader(
    view,
    t("open_upload"),
    types=["json", "npz"],
    key=opened.upload_key(),
    on_change=opened.receive_upload,
    args=(opened.upload_key(),),
    help=t("open_upload_help", limit=limit_mb),
)
refusal = st.session_state.get(opened.UPLOAD_REFUSAL)
if refusal is not None:
    st.error(opened.refusal_sentence(refusal, view.lang), icon=":material/error:")

shown = opened.current(view)
if shown is None:
    st.info(t("open_none"), icon=":material/info:")
else:
    st.success(t("open_done", file=shown.file_name, model=shown.model.name), icon=":material/check_circle:")
    if not shown.capture.provenance:
        st.warning(t("open_no_provenance"), icon=":material/help:")
    st.subheader(t("open_provenance_title"))
    rows = opened.provenance_rows(shown.capture, view.lang)
    st.dataframe(
        {t("open_column_what"): [name for name, _ in rows], t("open_column_value"): [value for _, value in rows]},
        hide_index=True,
        width="stretch",
        key="open_provenance",
    )
    st.subheader(t("open_explore_title"))
    with st.container(horizontal=True, gap="small"):
        if "cross" in shown.capture.maps:
            st.page_link(navigation.PAGES["translate"], label=t("page_translate"), icon=":material/translate:")
        st.page_link(navigation.PAGES["self_attention"], label=t("page_self_attention"), icon=":material/hub:")
        st.page_link(navigation.PAGES["heads"], label=t("page_heads"), icon=":material/grid_view:")
        st.button(t("open_close"), key="open_close", on_click=opened.close, icon=":material/close:")
