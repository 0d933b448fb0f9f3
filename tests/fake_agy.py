"""A stand-in ``agy`` whose ``--version`` prints what a test says: for the tests that read the
installed agy's version (doctor, ``ci --record`` alone) or need it to confirm a baseline name
(``record --name agy-X.Y.Z``, ``ci --record agy-X.Y.Z``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def agy_dir(directory: Path, version: str) -> Path:
    """*directory* (made if need be) holding an executable ``agy`` that prints *version* and exits 0."""
    directory.mkdir(parents=True, exist_ok=True)
    agy = directory / "agy"
    agy.write_text(f"#!/bin/sh\necho '{version}'\n")
    agy.chmod(0o755)
    return directory


def agy_on_path(monkeypatch: pytest.MonkeyPatch, directory: Path, version: str) -> None:
    """``PATH`` is *directory*, with such an ``agy``, then ``/bin`` and ``/usr/bin``."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(agy_dir(directory, version)), "/bin", "/usr/bin"]))
