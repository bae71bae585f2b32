"""Where the product's files lie: one assets root, in an installed package or in a checkout.

An installed wheel carries what the product reads at run time inside the package (`attnviz/assets/`: the embedded
models, the first page computed ahead, the favicon; pyproject.toml maps them in). A checkout keeps them in the
repository's top-level `assets/`, beside the training corpus, which the wheel leaves out.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
INSTALLED_ASSETS = PACKAGE / "assets"  # inside an installed wheel
CHECKOUT_ASSETS = PACKAGE.parent / "assets"  # the repository's folder, beside the package


def assets_root() -> Path:
    """The folder that holds `models/`, `first-view/` and `favicon.png`.

    The package's own copy wins: beside an installed package, `site-packages/assets` may belong to another
    distribution (some ship a top-level `assets/`)."""
    return INSTALLED_ASSETS if INSTALLED_ASSETS.is_dir() else CHECKOUT_ASSETS


ASSETS = assets_root()
FAVICON = ASSETS / "favicon.png"  # the app's icon: a file of its own, so the browser fetches nothing from elsewhere
