"""attnviz web app: `streamlit run app.py`.

Streamlit serves the `st.App` below: the app itself is app_pages/main.py (sidebar and navigation); the page scripts
are in app_pages/page_scripts/, each page's parts in a folder of the page's name, and what several pages share in
app_pages/shared/. Its lifespan starts loading the default model while the server starts, so the first visitor does
not wait for torch, transformers and the weights from scratch.
"""

import streamlit as st

from app_pages.shared.startup import lifespan

app = st.App("app_pages/main.py", lifespan=lifespan)
