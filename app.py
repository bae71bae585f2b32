"""attnviz web app (minimal page; the full multi-page app builds on the same library calls)."""

import streamlit as st

from attnviz.capture import capture
from attnviz.devices import device_report
from attnviz.errors import AttnvizError
from attnviz.models import catalogue, load_model

st.set_page_config(page_title="attnviz", layout="wide")
st.title("attnviz")


@st.cache_resource
def cached_model(name: str):
    return load_model(name)


names = [entry.name for entry in catalogue()]
model_name = st.sidebar.selectbox("Model", names, key="model")
st.sidebar.text(device_report().summary())
text = st.text_input("Text", "早上好！", key="text")
target = st.text_input("Target", "Good morning!", key="target")
try:
    handle = cached_model(model_name)
    result = capture(handle, text, target if handle.is_seq2seq and target.strip() else None)
    kind = "cross" if "cross" in result.maps else next(iter(result.maps))
    amap = result[kind]
    mean = amap.weights.mean(axis=(0, 1))  # (queries, keys)
    rows = [
        {"query": q.text, "most attended": amap.key_tokens[int(mean[i].argmax())].text, "weight": float(mean[i].max())}
        for i, q in enumerate(amap.query_tokens)
    ]
    st.dataframe(rows)
except AttnvizError as error:
    st.error(str(error))
