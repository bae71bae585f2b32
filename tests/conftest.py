import os

os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

import pytest  # noqa: E402

pytest_plugins = ["tests.support.engines"]  # the `engine` fixture: each export engine by name


@pytest.fixture(scope="session")
def tiny_folder(tmp_path_factory):
    """tiny_folder(family) -> path of a saved random tiny model of that family (made once per session)."""
    from tests.support import tiny

    made = {}

    def make(family: str) -> str:
        if family not in made:
            made[family] = tiny.save_tiny(family, tmp_path_factory.mktemp(family))
        return made[family]

    return make


def pytest_configure(config):
    """Under pytest-xdist (`make test-fast` runs two workers) each worker computes on one torch thread: two workers of
    two threads each would share two cores four ways."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def server_mode_restored():
    """A page that finds itself listening beyond loopback turns server mode on in the process's environment
    (`app_pages.shared.serving`): restored after each test, so that no later test in the worker runs as a server."""
    before = os.environ.get("ATTNVIZ_SERVER_MODE")
    yield
    if before is None:
        os.environ.pop("ATTNVIZ_SERVER_MODE", None)
    else:
        os.environ["ATTNVIZ_SERVER_MODE"] = before


GROUPS = {"unit": "unit", "integration": "integration", "browser": "browser"}


def pytest_collection_modifyitems(config, items):
    """Each test is marked by its folder (unit, integration, browser), so `-m` can pick a group; browser tests are
    slow as well."""
    for item in items:
        group = GROUPS.get(item.path.parent.name)
        if group:
            item.add_marker(group)
        if group == "browser":
            item.add_marker("slow")
