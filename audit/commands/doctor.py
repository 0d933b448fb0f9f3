"""``agy-audit doctor``: a quick health check of the stores, their daemons and the agy version."""

from __future__ import annotations

import argparse

from audit.commands import project
from audit.commands.common import add_format, add_key_file, add_progress, legacy_key, print_json, progress_of, roots_from, seconds
from audit.pipeline import doctor
from audit.report import doctor_report
from audit.safeio import is_file
from audit.store import layout


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "doctor",
        parents=[parents["store"]],
        help="quick health check of the stores, daemons and agy version",
        description=(
            "Per root: sessions, sidecars by content as completeness judges them against their .db (verified, "
            "incomplete, unknown) and sessions without one (missing), parent-link diagnostics and "
            "contract violations of the sidecars as they are, and the daemon (reachable with its token accepted, "
            "not running, or a problem). Then the installed agy version against the one COMPATIBILITY.md records. "
            "Every problem is listed with the command that addresses it (per session for sidecars). Nothing is written."
        ),
        epilog="Exit codes: 0 healthy, 1 action needed, 2 usage or unreadable input, 3 no store found.",
    )
    p.add_argument(
        "--compat-file",
        metavar="FILE",
        help="compatibility record to compare with (default: the project's, ./COMPATIBILITY.md, when it exists, else the bundled one)",
    )
    p.add_argument("--timeout", type=seconds, default=5.0, metavar="SECONDS", help="for the daemon probe (default 5)")
    p.add_argument("--allow-remote-daemon", action="store_true", help="accept a daemon endpoint that is not a loopback address")
    add_key_file(p)
    add_format(p)
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    compat_file = args.compat_file or project.load().compat_file
    if args.compat_file is None and not is_file(compat_file):
        compat_file = None  # nothing recorded in this project: the bundled record
    roots = layout.require_roots(roots_from(args))
    health = doctor.diagnose(
        roots,
        compat_file=compat_file,
        timeout=args.timeout,
        allow_remote=args.allow_remote_daemon,
        key=legacy_key(args),
        progress=progress_of(args),
    )
    if args.format == "json":
        print_json("doctor", health.exit_code, doctor_report.result_json(health))
    else:
        print(doctor_report.text(health))
    return health.exit_code
