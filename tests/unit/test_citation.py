"""The licence and the citation file: CITATION.cff parses as YAML and holds what Citation File Format 1.2.0 requires
(cff-version, message, title, authors, each author a person or an entity), with the package's version and licence;
LICENSE is the Apache License 2.0 that pyproject.toml declares for the code."""

from pathlib import Path

import tomllib
import yaml

import attnviz

REPO = Path(__file__).resolve().parents[2]


def citation() -> dict:
    return yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_has_the_keys_cff_1_2_0_requires():
    cff = citation()
    assert cff["cff-version"] == "1.2.0"
    assert isinstance(cff["message"], str) and cff["message"].strip()
    assert isinstance(cff["title"], str) and cff["title"].strip()
    assert isinstance(cff["authors"], list) and cff["authors"]
    for author in cff["authors"]:  # a person has family-names (or given-names), an entity a name
        assert isinstance(author, dict) and ({"name", "family-names", "given-names"} & set(author)), author
    assert set(cff) <= {  # only keys of the 1.2.0 schema: a misspelt one would be ignored by every reader
        "abstract",
        "authors",
        "cff-version",
        "commit",
        "contact",
        "date-released",
        "doi",
        "identifiers",
        "keywords",
        "license",
        "license-url",
        "message",
        "preferred-citation",
        "references",
        "repository",
        "repository-artifact",
        "repository-code",
        "title",
        "type",
        "url",
        "version",
    }
    assert cff.get("type", "software") in ("software", "dataset")


def test_citation_version_and_licence_are_the_packages():
    cff = citation()
    assert str(cff["version"]) == attnviz.__version__
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert cff["license"] == "Apache-2.0" and pyproject["license"].startswith("Apache-2.0")
    assert pyproject["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text
