import os
import sys
from pathlib import Path

os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/tiny.py: shared tiny models

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def tiny_folder(tmp_path_factory):
    """tiny_folder(family) -> path of a saved random tiny model of that family (made once per session)."""
    import tiny

    made = {}

    def make(family: str) -> str:
        if family not in made:
            made[family] = tiny.save_tiny(family, tmp_path_factory.mktemp(family))
        return made[family]

    return make


@pytest.fixture(scope="module")
def one_torch_thread():
    """The app runs torch with one thread (app_pages/model_runs.py); captures a test makes beside it do too, so that
    both sides compute bit-equal weights."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def downloads(monkeypatch):
    """The app's download buttons by file name: {file name: the callable that makes the file when it is clicked}."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    made = {}
    register = MediaFileManager.add_deferred

    def recorded(self, data_callable, mimetype, coordinates, file_name=None, **options):
        made[file_name] = data_callable
        return register(self, data_callable, mimetype, coordinates, file_name, **options)

    monkeypatch.setattr(MediaFileManager, "add_deferred", recorded)
    return made
