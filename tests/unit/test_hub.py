"""The hub models attnviz offers: what each one is, reads and downloads, and a sentence (not a hang) offline."""

from __future__ import annotations

import socket
import threading

import pytest

from attnviz.cli import main
from attnviz.errors import ModelLoadError
from attnviz.model import catalogue, hub
from attnviz.model import load as models
from attnviz.model.policy import Policy

EXPECTED = {  # id: (kind, languages, megabytes downloaded on first use, roughly)
    "Helsinki-NLP/opus-mt-zh-en": ("encoder-decoder", ("zh",), 300),
    "Helsinki-NLP/opus-mt-en-zh": ("encoder-decoder", ("en",), 300),
    "facebook/nllb-200-distilled-600M": ("encoder-decoder", ("zh", "en"), 2500),
    "google-t5/t5-small": ("encoder-decoder", ("en",), 240),
    "bert-base-chinese": ("encoder", ("zh",), 410),
    "bert-base-multilingual-cased": ("encoder", ("zh", "en"), 710),
    "gpt2": ("decoder", ("en",), 550),
    "Qwen/Qwen2.5-0.5B": ("decoder", ("zh", "en"), 990),
}


def test_the_hub_catalogue_lists_each_model_with_its_kind_languages_and_size():
    entries = {entry.name: entry for entry in hub.hub_catalogue("en", Policy())}
    assert set(EXPECTED) <= set(entries)
    for name, (kind, languages, megabytes) in EXPECTED.items():
        entry = entries[name]
        assert (entry.path, entry.kind, entry.languages) == (name, kind, languages), name
        assert entry.kind in catalogue.KINDS
        assert abs(hub.BY_ID[name].download_mb - megabytes) / megabytes < 0.05, name
        assert entry.description and entry.description != f"hub_description.{name}"
    chinese = {entry.name: entry for entry in hub.hub_catalogue("zh", Policy())}
    assert chinese["gpt2"].description != entries["gpt2"].description
    assert [(e.name, e.kind, e.languages) for e in chinese.values()] == [
        (e.name, e.kind, e.languages) for e in entries.values()
    ]


def test_the_embedded_catalogue_keeps_its_entries_and_downloads_nothing():
    for entry in catalogue.catalogue():
        assert entry.name not in hub.BY_ID and "downloads on first use" not in entry.description


def test_a_picker_label_says_the_size_and_that_it_downloads_on_first_use_in_both_languages():
    entry = next(e for e in hub.hub_catalogue("en", Policy()) if e.name == "facebook/nllb-200-distilled-600M")
    english = hub.option_label(entry, "en")
    assert english.startswith("facebook/nllb-200-distilled-600M") and "about 2.5 GB" in english
    assert "downloads on first use" in english and "Chinese and English" in english and "translator" in english
    chinese = hub.option_label(entry, "zh")
    assert "约 2.5 GB" in chinese and "首次使用时下载" in chinese and "中文和英文" in chinese
    assert hub.size_text(310) == "310 MB" and hub.size_text(988) == "988 MB" and hub.size_text(2460) == "2.5 GB"


def test_server_mode_offers_only_the_allowlisted_hub_models():
    policy = Policy(server_mode=True, allowed_models=("gpt2",))
    assert [entry.name for entry in hub.hub_catalogue("en", policy)] == ["gpt2"]
    assert hub.hub_catalogue("en", Policy(server_mode=True)) == []


def test_offline_a_hub_model_is_refused_with_a_sentence_and_no_connection(monkeypatch):
    """Offline, the refusal comes before any connection is tried (the hub client's retries would take ~30 s)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    tried = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *args, **kwargs: tried.append(host) or _refuse())
    monkeypatch.setattr(socket.socket, "connect", lambda sock, address: tried.append(address) or _refuse())
    with pytest.raises(ModelLoadError) as refused:
        models.load_model("gpt2", "cpu")
    assert tried == []
    error = refused.value
    assert error.key == "hub_offline"
    english = error.message("en")
    assert english.startswith("gpt2 is not on this computer yet (about 548 MB") and "HF_HUB_OFFLINE is on" in english
    assert hub.hub_cache() in english
    chinese = error.message("zh")
    assert chinese.startswith("gpt2 还不在这台电脑上") and "HF_HUB_OFFLINE 已开启" in chinese and "无法下载" in chinese


@pytest.mark.parametrize(
    "hub_id, embedded",
    [
        ("Helsinki-NLP/opus-mt-en-zh", "demo-en-zh"),
        ("Helsinki-NLP/opus-mt-zh-en", "demo-zh-en"),
        ("gpt2", "demo-decoder"),
        ("bert-base-chinese", "minilm"),
        ("org/unknown", "demo-zh-en"),
    ],
)
def test_offline_the_sentence_offers_the_embedded_model_nearest_the_one_asked_for(monkeypatch, hub_id, embedded):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(models, "_cached", lambda model_id: False)
    with pytest.raises(ModelLoadError) as refused:
        models.load_model(hub_id, "cpu")
    assert f"use an embedded model such as {embedded}." in str(refused.value)
    assert f"改用内置模型，例如 {embedded}。" in refused.value.message("zh")


def _refuse():
    raise OSError("no network in this test")


def test_an_unreachable_hub_is_named_in_the_sentence(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the discard port: nothing listens
    monkeypatch.setattr(models, "_cached", lambda model_id: False)
    with pytest.raises(ModelLoadError) as refused:
        models.load_model("org/not-downloaded", "cpu")
    assert "size not known here" in str(refused.value) and "(http://127.0.0.1:9) does not answer" in str(refused.value)
    assert "没有响应" in refused.value.message("zh")


def test_a_stalled_name_lookup_cannot_outlast_the_reachability_timeout(monkeypatch):
    """A resolver that never answers until the test lets it: `_hub_reachable` says False while the lookup is still
    stalled (by events, not by a clock: the lookup ends only after the answer has come)."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    entered, release, gave_up = threading.Event(), threading.Event(), threading.Event()

    def stalled(*args, **kwargs):
        entered.set()
        release.wait(60)
        gave_up.set()
        raise OSError("name lookup timed out")

    monkeypatch.setattr(socket, "create_connection", stalled)
    try:
        assert models._hub_reachable(timeout=0.3) is False
        assert entered.is_set() and not gave_up.is_set()  # answered while the lookup still hung
    finally:
        release.set()


def test_the_cli_says_it_in_one_line_and_exits_2_offline(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code = main(["capture", "--model", "google-t5/t5-small", "--text", "Hello", "-o", str(tmp_path / "c.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("attnviz: error: google-t5/t5-small is not on this computer yet (about 242 MB")
    assert not (tmp_path / "c.json").exists()


def test_the_cli_lists_the_hub_models_after_the_embedded_ones(capsys):
    assert main(["models"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    hub_lines = {line.split("\t")[0]: line for line in lines if "downloads on first use" in line}
    assert list(hub_lines) == [model.id for model in hub.HUB_MODELS]
    assert hub_lines["gpt2"].split("\t")[1] == "decoder" and "about 548 MB" in hub_lines["gpt2"]
    assert lines.index(hub_lines["gpt2"]) >= len(catalogue.catalogue())
