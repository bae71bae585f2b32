"""The version of attnviz: the one place it is written (pyproject.toml reads it from here; `attnviz.__version__`,
provenance and figure files read it too; CITATION.cff repeats it, and tests/unit/test_citation.py holds the two equal)."""

__version__ = "0.1.0"
