"""Server mode on saved model folders: allowlisted folders load, ../ and symlink escapes and folders above the size
limit are refused, in English and Chinese."""

import os
import shutil

import pytest

from attnviz.errors import ModelLoadError
from attnviz.model.load import load_model
from attnviz.model.policy import Policy


@pytest.fixture
def allowed(tmp_path, tiny_folder):
    root = tmp_path / "models"
    root.mkdir()
    shutil.copytree(tiny_folder("bert"), root / "tiny-bert")
    outside = tmp_path / "outside"
    shutil.copytree(tiny_folder("bert"), outside)
    os.symlink(outside, root / "sneaky-link")
    return root, outside


def test_local_use_allows_any_folder(allowed):
    root, outside = allowed
    assert load_model(str(outside), "cpu", policy=Policy()).kind == "encoder"


def test_server_mode_allows_only_the_allowlist(allowed):
    root, outside = allowed
    policy = Policy(server_mode=True, allowed_dirs=(os.path.realpath(root),))
    assert load_model(str(root / "tiny-bert"), "cpu", policy=policy).kind == "encoder"
    for escape in [str(outside), str(root / ".." / "outside"), str(root / "sneaky-link")]:
        with pytest.raises(ModelLoadError, match="does not allow"):
            load_model(escape, "cpu", policy=policy)
    with pytest.raises(ModelLoadError, match="ATTNVIZ_ALLOWED_MODELS"):
        load_model("someone/some-model", "cpu", policy=policy)
    assert load_model("minilm", "cpu", policy=policy).kind == "encoder"  # catalogue models stay allowed


def test_size_limit(allowed):
    root, _ = allowed
    with pytest.raises(ModelLoadError, match="above this server's limit"):
        load_model(str(root / "tiny-bert"), "cpu", policy=Policy(max_model_mb=0.001))


def test_refusals_are_said_in_chinese_too(allowed):
    root, outside = allowed
    policy = Policy(server_mode=True, allowed_dirs=(os.path.realpath(root),))
    with pytest.raises(ModelLoadError) as folder:
        load_model(str(outside), "cpu", policy=policy)
    assert "此服务器不允许" in folder.value.message("zh") and "ATTNVIZ_ALLOWED_DIRS" in folder.value.message("zh")
    with pytest.raises(ModelLoadError) as hub:
        load_model("someone/some-model", "cpu", policy=policy)
    assert str(hub.value) == (
        "This server does not allow loading 'someone/some-model'; ask its operator to add it to ATTNVIZ_ALLOWED_MODELS."
    )
    assert "管理员" in hub.value.message("zh")
    with pytest.raises(ModelLoadError) as size:
        load_model(str(root / "tiny-bert"), "cpu", policy=Policy(max_model_mb=0.001))
    assert "上限" in size.value.message("zh")
