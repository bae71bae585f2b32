"""The installable package: `import attnviz` stays light and offers the everyday API; pyproject.toml declares what
the requirements files install and the console script; one assets root serves a checkout and an installed wheel."""

import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

import attnviz
from attnviz import cli, paths, version
from attnviz.api import capture, capture_lazy, generate
from attnviz.model import catalogue, objects
from attnviz.model import load as models
from attnviz.notebook import explore as explorer
from attnviz.notebook import show as notebook

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
PYPROJECT_RUNTIME = set(PYPROJECT["project"]["dependencies"])
EVERYDAY = {
    "load_model": models.load_model,
    "from_objects": objects.from_objects,
    "capture": capture,
    "capture_lazy": capture_lazy,
    "generate": generate,
    "show": notebook.show,
    "explore": explorer.explore,
}


def _requirements(name: str) -> set[str]:
    """The requirements a requirements file lists, comments dropped; `-r requirements-X.txt` reads as the extra
    `attnviz[X]` (as pyproject.toml writes it), `-r requirements.txt` as the runtime dependencies."""
    found = set()
    for line in (REPO / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].replace(" ", "")
        if line.startswith("-r"):
            included = line[2:]
            found |= PYPROJECT_RUNTIME if included == "requirements.txt" else {f"attnviz[{_extra_of(included)}]"}
        elif line:
            found.add(line)
    return found


def _extra_of(requirements_file: str) -> str:
    return requirements_file.removeprefix("requirements-").removesuffix(".txt")


def test_import_attnviz_leaves_torch_unimported():
    """A fresh interpreter: `import attnviz` (and reading its types and errors) imports neither torch nor
    transformers; reading `attnviz.capture` does."""
    probe = (
        "import sys, attnviz; attnviz.AttentionMap, attnviz.InputError; "
        "print('torch' in sys.modules, 'transformers' in sys.modules); "
        "attnviz.capture; print('torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.split() == ["False", "False", "True"], done.stderr


@pytest.mark.parametrize("name", sorted(EVERYDAY))
def test_each_everyday_name_is_the_real_function(name):
    assert getattr(attnviz, name) is EVERYDAY[name]
    assert name in attnviz.__all__ and name in dir(attnviz)


def test_from_attnviz_import_works_and_unknown_names_still_fail():
    from attnviz import capture as imported

    assert imported is capture
    with pytest.raises(AttributeError, match="no_such_thing"):
        attnviz.no_such_thing  # noqa: B018 - reading it is the test
    assert all(hasattr(attnviz, name) for name in attnviz.__all__)


def test_runtime_dependencies_are_requirements_txt():
    assert PYPROJECT_RUNTIME == _requirements("requirements.txt")
    assert any(dependency.startswith("torch==") for dependency in PYPROJECT_RUNTIME)  # a pinned CPU-sized torch


@pytest.mark.parametrize("extra", ["ray", "npu", "train", "notebook", "dev"])
def test_each_extra_mirrors_its_requirements_file(extra):
    """requirements-X.txt = the extra X (plus the runtime dependencies where the file includes requirements.txt)."""
    listed = _requirements(f"requirements-{extra}.txt") - PYPROJECT_RUNTIME
    assert set(PYPROJECT["project"]["optional-dependencies"][extra]) == listed


def test_the_console_script_is_python_m_attnviz():
    assert PYPROJECT["project"]["scripts"] == {"attnviz": "attnviz.cli:main"}
    assert callable(cli.main)
    main_module = (REPO / "attnviz" / "__main__.py").read_text(encoding="utf-8")
    assert "from attnviz.cli import main" in main_module


def test_the_wheel_holds_the_package_alone():
    assert PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["attnviz"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "attnviz/version.py"
    assert attnviz.__version__ == version.__version__  # the package face hands on the one written version


def test_the_wheel_carries_what_the_product_reads_at_run_time():
    """Every folder the catalogue reads and the favicon lie in the checkout's assets/ under a path the wheel maps to
    the same place under attnviz/assets/ (where `paths.assets_root` looks first)."""
    mapped = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert all(target == f"attnviz/{source}" for source, target in mapped.items())
    assert not any(source.startswith("assets/corpus") for source in mapped)  # training data: the repository's only
    needed = [folder for name, folder, _ in catalogue.catalogue_folders() if name.startswith("demo-")]
    needed += [paths.FAVICON, paths.ASSETS / "first-view"]
    assert len(needed) == 5
    for path in needed:
        relative = path.relative_to(REPO).as_posix()
        assert any(relative == source or relative.startswith(source + "/") for source in mapped), relative
        assert (REPO / relative).exists()


def test_the_assets_root_is_the_checkout_s_here_and_the_package_s_once_installed(monkeypatch, tmp_path):
    assert not paths.INSTALLED_ASSETS.exists()  # a checkout: nothing copied into the package
    assert paths.assets_root() == REPO / "assets" == paths.ASSETS
    assert models.ASSETS == paths.ASSETS  # still importable where it was
    installed = tmp_path / "site-packages" / "attnviz" / "assets"
    installed.mkdir(parents=True)
    monkeypatch.setattr(paths, "INSTALLED_ASSETS", installed)
    assert paths.assets_root() == installed
