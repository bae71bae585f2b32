"""The sidebar's hub models: listed with their sizes and "downloads on first use"; offline, picking one says why it
cannot load, in the page's language, within seconds."""

from __future__ import annotations

import html
import json
import socket
from pathlib import Path

import jieba
import pytest
from streamlit.testing.v1 import AppTest

from attnviz import i18n
from attnviz.model import hub
from tests.support import replicas

APP = str(Path(__file__).resolve().parents[2] / "app_pages" / "main.py")
PICK = "w_model_pick"


def open_app(page: str | None = None, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for name, value in params.items():
        at.query_params[name] = str(value)
    at.run()
    return at.switch_page(page).run() if page else at


def specs(at: AppTest) -> list[dict]:
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


def figures_text(at: AppTest) -> str:
    """The page's figures as JSON text, labels unescaped (figures escape them for plotly's HTML labels)."""
    return html.unescape(json.dumps(specs(at), ensure_ascii=False))


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    def make(model_id: str) -> str:
        return replicas.BUILDERS[model_id](tmp_path_factory.mktemp(model_id.replace("/", "_")))

    return make


def test_the_sidebar_lists_the_hub_models_by_id_and_says_a_picked_ones_size(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = open_app()
    picker = at.selectbox(key=PICK)
    labels = picker.options
    assert all(model.id in labels for model in hub.HUB_MODELS)  # whole ids, short enough to be read whole
    assert labels[0] == "Demo translator Chinese → English"  # the embedded models stay first
    for lang, words in (("en", "downloaded once on first use"), ("zh", "首次使用时下载")):
        at.button_group(key="w_lang").set_value(lang).run()
        at.selectbox(key=PICK).set_value("gpt2").run()
        said = " ".join(caption.value for caption in at.sidebar.caption)
        size = hub.size_text(hub.BY_ID["gpt2"].download_mb)
        assert size in said and words in said and i18n.t("hub_kind.decoder", lang) in said
        assert "gpt2" in at.selectbox(key=PICK).options


def test_picking_a_hub_model_offline_says_why_in_the_page_language(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = open_app(lang="zh")
    tried = []  # a sentence, not the hub client's retries: no name is looked up, no connection tried

    def no_network(what):
        tried.append(what)
        raise OSError("no network in this test")

    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *args, **kwargs: no_network(host))
    monkeypatch.setattr(socket.socket, "connect", lambda sock, address: no_network(address))
    at.selectbox(key=PICK).set_value("Qwen/Qwen2.5-0.5B").run()
    assert tried == []
    assert not at.exception
    assert at.query_params["model"] == "Qwen/Qwen2.5-0.5B"
    said = " ".join(error.value for error in at.error)
    assert "Qwen/Qwen2.5-0.5B 还不在这台电脑上" in said and "约 988 MB" in said and "HF_HUB_OFFLINE 已开启" in said
    assert any("来自 Hugging Face Hub" in caption.value for caption in at.sidebar.caption)
    at.button_group(key="w_lang").set_value("en").run()
    said = " ".join(error.value for error in at.error)
    assert "Qwen/Qwen2.5-0.5B is not on this computer yet (about 988 MB" in said


def test_a_deployment_without_custom_models_lists_no_hub_models(monkeypatch):
    monkeypatch.setenv("ATTNVIZ_ALLOW_CUSTOM_MODELS", "0")
    at = open_app()
    assert not [label for label in at.selectbox(key=PICK).options if "downloads on first use" in label]


def test_a_bert_replica_draws_on_the_self_attention_page(replica):
    at = open_app("page_scripts/self_attention.py", model=replica("bert-base-chinese"), text="早上好！")
    assert not at.exception and not at.error
    (heatmap,) = [spec for spec in specs(at) if spec["layout"]["meta"]["view"] == "heatmap"]
    # bert-base-chinese reads a character at a time; with Words on (the default) they join into the segmenter's words
    words = [html.unescape(label) for label in heatmap["layout"]["xaxis"]["ticktext"]]
    jieba_words = [word for word, _, _ in jieba.Tokenizer().tokenize("早上好", HMM=False)]  # jieba's own cut
    assert words == [*jieba_words, "！"]
    assert len(words) < len("早上好！")


def test_an_nllb_replica_translates_on_the_translate_page_with_its_language_codes(replica):
    at = open_app(model=replica("facebook/nllb-200-distilled-600M"), text="早上好！", mode="generate", hide=0)
    assert not at.exception and not at.error
    drawn = figures_text(at)
    assert "zho_Hans" in drawn and "eng_Latn" in drawn  # the source's code, and the target's, forced first
