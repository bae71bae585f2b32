"""Safe by default: a local app listens on loopback only; serving others turns server mode on, and a server-mode
visitor cannot load a folder or hub id outside the allowlists, by a link's query parameters or by the sidebar's
widgets. The page says which mode it runs in, in both languages.

The listening tests start the real server (`streamlit run app.py`) with the project's own .streamlit/config.toml and
read its sockets; the visitor tests drive the app under AppTest."""

from __future__ import annotations

import ipaddress
import os
import shutil
import socket

import psutil
import pytest
from streamlit import config as streamlit_config

from app_pages.shared import serving
from app_pages.shared.session import CUSTOM
from attnviz import i18n
from attnviz.errors import ModelLoadError
from tests.support import app as app_support
from tests.support.app import assert_page_ok, open_by_link
from tests.support.browser import streamlit_server

SERVER_MODE = serving.SERVER_MODE
ALLOWED_DIRS = "ATTNVIZ_ALLOWED_DIRS"
ALLOWED_MODELS = "ATTNVIZ_ALLOWED_MODELS"
PICK, CUSTOM_INPUT = "w_model_pick", "w_model_custom"


def other_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (where a visitor on the network would connect)."""
    found = []
    for entries in psutil.net_if_addrs().values():
        for entry in entries:
            if entry.family == socket.AF_INET and not ipaddress.ip_address(entry.address).is_loopback:
                found.append(entry.address)
    return found


def listening(pid: int, port: int) -> list[str]:
    """The addresses the process `pid` listens on at `port`."""
    sockets = psutil.Process(pid).net_connections(kind="inet")
    return [s.laddr.ip for s in sockets if s.status == psutil.CONN_LISTEN and s.laddr.port == port]


def reachable(address: str, port: int) -> bool:
    try:
        with socket.create_connection((address, port), timeout=3):
            return True
    except OSError:
        return False


def served(tmp_path, address: str | None, env: dict[str, str]):
    """`streamlit_server` on `address` (None: the project's config), with the server's process."""
    started: list = []
    return streamlit_server(env, tmp_path / "server.log", address=address, started=started), started


# ----------------------------------------------------------------------------------------------------------------------
# Listening


@pytest.mark.slow
def test_a_local_app_listens_on_loopback_only(tmp_path, monkeypatch):
    others = other_addresses()
    if not others:
        pytest.skip("this machine has no address beyond loopback to try")
    monkeypatch.delenv("STREAMLIT_SERVER_ADDRESS", raising=False)  # the project's config.toml decides
    server, started = served(tmp_path, None, {SERVER_MODE: ""})
    with server as (url, _):
        port = int(url.rsplit(":", 1)[1])
        bound = listening(started[0].pid, port)
        assert bound and all(ipaddress.ip_address(ip).is_loopback for ip in bound), bound
        assert reachable("127.0.0.1", port)
        assert not any(reachable(address, port) for address in others)


@pytest.mark.slow
def test_an_app_served_beyond_loopback_turns_server_mode_on(tmp_path):
    others = other_addresses()
    if not others:
        pytest.skip("this machine has no address beyond loopback to try")
    server, _ = served(tmp_path, "0.0.0.0", {SERVER_MODE: "off"})  # off as given: listening widely overrides it
    with server as (url, _):
        port = int(url.rsplit(":", 1)[1])
        assert reachable(others[0], port)  # the other side of the local test: reachable once served
    assert "beyond loopback: server mode is on" in (tmp_path / "server.log").read_text(errors="replace")


@pytest.mark.parametrize(
    "address, beyond",
    [
        ("127.0.0.1", False),
        ("127.0.0.2", False),
        ("::1", False),
        ("[::1]", False),
        ("localhost", False),
        ("", True),
        (None, True),
        ("0.0.0.0", True),
        ("::", True),
        ("192.0.2.7", True),
        ("example.org", True),
    ],
)
def test_which_addresses_are_beyond_loopback(address, beyond):
    assert serving.beyond_loopback(address) is beyond


# ----------------------------------------------------------------------------------------------------------------------
# What a visitor may load


@pytest.fixture
def server_mode(tmp_path, tiny_folder, monkeypatch):
    """Server mode with one allowlisted folder (holding a copy of a tiny BERT) and one allowlisted hub id; returns
    (allowed model folder, a model folder outside the allowlist, a symlink inside it pointing outside)."""
    root = tmp_path / "allowed"
    allowed = shutil.copytree(tiny_folder("bert"), root / "tiny-bert")
    outside = shutil.copytree(tiny_folder("bert"), tmp_path / "elsewhere" / "tiny-bert")
    link = root / "escape"
    link.symlink_to(outside, target_is_directory=True)
    monkeypatch.setenv(SERVER_MODE, "on")
    monkeypatch.setenv(ALLOWED_DIRS, str(root))
    monkeypatch.setenv(ALLOWED_MODELS, "org/allowed-model")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return str(allowed), str(outside), str(link)


def said(at) -> str:
    return " ".join(element.value for element in at.error)


def refusal(model: str, lang: str) -> str:
    """The sentence of the server's refusal of `model` (a folder or a hub id) in `lang`."""
    if model.startswith("/"):
        error = ModelLoadError("server_refuses_folder", folder=model, variable=ALLOWED_DIRS)
    else:
        error = ModelLoadError("server_refuses_hub_id", model=model, variable=ALLOWED_MODELS)
    return error.message(lang)


def refused(at, model: str, lang: str = "en") -> bool:
    """The page said the server refuses `model`, and drew no figure of it (only empty charts drawn while loading)."""
    views = [spec.get("layout", {}).get("meta", {}) for spec in app_support.chart_specs(at)]
    return refusal(model, lang) in said(at) and not any(isinstance(meta, dict) and "view" in meta for meta in views)


@pytest.mark.slow
def test_a_server_mode_visitor_cannot_load_outside_the_allowlists_by_link(server_mode, monkeypatch):
    allowed, outside, link = server_mode
    with monkeypatch.context() as local:  # loaded once in local mode: in the process's model cache from then on
        local.setenv(SERVER_MODE, "off")
        assert app_support.charts(open_by_link("page_scripts/self_attention.py", model=outside))
    for model in (outside, link, "org/not-allowed"):
        for lang in ("en", "zh"):
            at = open_by_link("page_scripts/self_attention.py", model=model, lang=lang)
            assert not at.exception
            assert refused(at, model, lang), (model, lang, said(at))
    at = open_by_link("page_scripts/compare.py", model_b=outside, text_b="Good evening!")  # Compare's model B too
    assert not at.exception
    assert refusal(outside, "en") in said(at), said(at)
    at = open_by_link("page_scripts/self_attention.py", model=allowed)  # the allowlisted folder loads
    assert_page_ok(at)
    assert app_support.charts(at)


@pytest.mark.slow
def test_a_server_mode_visitor_cannot_load_outside_the_allowlists_by_widget(server_mode):
    allowed, outside, _ = server_mode
    at = open_by_link("page_scripts/self_attention.py")
    at.selectbox(key=PICK).set_value(CUSTOM).run()
    for model in (outside, "org/not-allowed"):
        at.text_input(key=CUSTOM_INPUT).input(model).run()
        assert not at.exception
        assert refused(at, model), (model, said(at))
    at.text_input(key=CUSTOM_INPUT).input(allowed).run()
    assert_page_ok(at)
    assert app_support.charts(at)


def sidebar_captions(at) -> str:
    return " ".join(caption.value for caption in at.sidebar.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_says_which_mode_it_runs_in(lang, monkeypatch):
    monkeypatch.delenv(SERVER_MODE, raising=False)
    at = open_by_link(lang=lang)
    local = i18n.t("mode_local", lang, address="127.0.0.1")
    assert local in sidebar_captions(at)
    monkeypatch.setenv(SERVER_MODE, "on")
    at = open_by_link(lang=lang)
    assert i18n.t("mode_server", lang, allowed=0) in sidebar_captions(at)
    assert local not in sidebar_captions(at)


@pytest.mark.slow
def test_an_app_set_to_listen_beyond_loopback_refuses_outside_models(tiny_folder, monkeypatch):
    monkeypatch.delenv(SERVER_MODE, raising=False)  # restored (absent) after the test: the app sets it
    monkeypatch.setitem(os.environ, "HF_HUB_OFFLINE", "1")
    address = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "0.0.0.0")
    try:
        at = open_by_link("page_scripts/self_attention.py", model=tiny_folder("bert"))
    finally:
        streamlit_config.set_option("server.address", address)
    assert i18n.t("mode_server", "en", allowed=0) in sidebar_captions(at)
    assert refused(at, tiny_folder("bert")), said(at)
