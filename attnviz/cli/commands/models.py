"""`attnviz models`: the catalogue's models and the hub models this deployment may download, one a line."""

from __future__ import annotations

from attnviz import i18n
from attnviz.model import hub
from attnviz.model import load as catalogue_models


def run() -> int:
    for entry in catalogue_models.catalogue():
        print(f"{entry.name}\t{entry.kind}\t{entry.description}")
    for entry in hub.hub_catalogue():
        downloads = i18n.t("hub_downloads", size=hub.size_text(hub.BY_ID[entry.name].download_mb))
        print(f"{entry.name}\t{entry.kind}\t{entry.description}; {downloads}")
    return 0
