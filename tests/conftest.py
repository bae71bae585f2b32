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
