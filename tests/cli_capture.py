"""Run the agy-audit command line in-process and capture what it prints (shared by the reliability tests)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from audit.cli import main


def cli(*argv: object) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``agy-audit ARGV...``."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()
