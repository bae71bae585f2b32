"""The version of attnviz: the one place it is written (pyproject.toml reads it from here; `attnviz.__version__`,
provenance and figure files read it too)."""

__version__ = "0.1.0"
