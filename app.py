"""attnviz web app: `streamlit run app.py`.

Streamlit serves the `st.App` below: the app itself is app_pages/main.py (sidebar and navigation) with one file per
page beside it. Its lifespan starts loading the default model while the server starts, so the first visitor does not
wait for torch, transformers and the weights from scratch.
"""

import streamlit as st

from app_pages.startup import lifespan

app = st.App("app_pages/main.py", lifespan=lifespan)
