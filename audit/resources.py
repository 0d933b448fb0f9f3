"""Data the program needs at run time: the JSON Schemas, the bundled baselines and consumer profiles.

In a wheel they live inside the package (``audit/_data/``, force-included by pyproject.toml);
in a source checkout they are the repository's top-level ``schemas/``, ``fingerprints/`` and ``consumers/``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_path(name: str) -> Path:
    """Directory (or file) *name* of the bundled data: ``schemas``, ``fingerprints``, ``consumers``, ``COMPATIBILITY.md``."""
    packaged = Path(str(resources.files("audit"))) / "_data" / name
    if packaged.exists():
        return packaged
    return Path(__file__).resolve().parent.parent / name
