"""Server mode: allowlisted hub ids and folders only, no ../ or symlink escapes, a size limit."""

import os

import pytest

from attnviz import settings
from attnviz.errors import ModelLoadError, SettingError
from attnviz.model.load import load_model
from attnviz.model.policy import Policy


def test_settings_from_environment_and_secrets(tmp_path, monkeypatch):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('[attnviz]\nserver_mode = true\nallowed_models = ["org/a", "org/b"]\nmax_model_mb = 50\n')
    policy = Policy.from_settings(settings.current(secrets_file=secrets))
    assert policy.server_mode and policy.allowed_models == ("org/a", "org/b") and policy.max_model_mb == 50
    monkeypatch.setenv("ATTNVIZ_SERVER_MODE", "0")
    monkeypatch.setenv("ATTNVIZ_ALLOWED_MODELS", "org/c")
    policy = Policy.from_settings(settings.current(secrets_file=secrets))
    assert not policy.server_mode and policy.allowed_models == ("org/c",)
    monkeypatch.setenv("ATTNVIZ_MAX_MODEL_MB", "lots")
    with pytest.raises(SettingError, match="number of megabytes"):
        Policy.from_settings(settings.current(secrets_file=secrets))


def test_the_default_policy_is_the_settings_in_force(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTNVIZ_SERVER_MODE", "on")
    monkeypatch.setenv("ATTNVIZ_ALLOWED_DIRS", str(tmp_path))
    monkeypatch.setenv("ATTNVIZ_MAX_MODEL_MB", "12.5")
    policy = Policy.from_settings()
    assert policy == Policy(True, (), (os.path.realpath(tmp_path),), 12.5)
    with pytest.raises(ModelLoadError, match="ATTNVIZ_ALLOWED_MODELS"):
        load_model("someone/some-model", "cpu")
