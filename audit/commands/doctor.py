"""``agy-audit doctor``: a quick health check of the stores, their daemons and the agy version."""

from __future__ import annotations

import argparse
from typing import Any

from audit.commands import project
from audit.commands.common import add_format, add_key_file, add_progress, legacy_key, print_json, progress_of, roots_from, seconds
from audit.errors import EXIT_FINDINGS, EXIT_OK
from audit.pipeline import doctor
from audit.report.text import table
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
        print_json("doctor", EXIT_OK if health.healthy else EXIT_FINDINGS, _json(health))
    else:
        print(_text(health))
    return EXIT_OK if health.healthy else EXIT_FINDINGS


def _daemon_text(d: doctor.Daemon) -> str:
    found = f"{d.path}: {d.origin}" if d.path and d.origin and d.path != d.origin else d.origin
    where = f" at {d.url}" + (f" (found by {found})" if found else "") if d.url else ""
    return f"{d.state}{where}: {d.detail}"


def _csrf_text(d: doctor.Daemon) -> str:
    if d.csrf is None:
        return "unknown (no daemon asked)"
    return d.csrf + (f" ({d.token_origin})" if d.token_origin else "")


def _watch_text(h: doctor.RootHealth) -> str:
    if h.watch == "covered":
        return f"covered by agy-reader --watch (pid {h.watcher})"
    if h.watch == "not covered":
        return "no agy-reader --watch process covers this root"
    return "unknown (no /proc on this platform)"


def _text(health: doctor.Health) -> str:
    rows = [
        (
            str(h.root.path),
            h.root.product,
            h.sessions,
            *(h.sidecars[state] for state in doctor.SIDECAR_STATES),
            h.link_diagnostics,
            h.link_failing,
            h.violations,
            h.daemon.state,
        )
        for h in health.roots
    ]
    out = [
        table(
            (
                "ROOT",
                "PRODUCT",
                "SESSIONS",
                *(state.upper() for state in doctor.SIDECAR_STATES),
                "LINK DIAGNOSTICS",
                "FAILING",
                "VIOLATIONS",
                "DAEMON",
            ),
            rows,
        ),
        "",
    ]
    for h in health.roots:
        name = h.root.path.name
        out.append(f"daemon {name}: {_daemon_text(h.daemon)}")
        out += [f"  note: {note}" for note in h.daemon.notes]
        out.append(f"csrf {name}: {_csrf_text(h.daemon)}")
        out.append(f"watch {name}: {_watch_text(h)}")
    installed = health.installed or "unknown (agy --version did not answer)"
    state = "" if health.version == doctor.UNKNOWN else f" ({health.version})"
    out.append(f"agy: {installed}; {health.compat_file} records {health.recorded or 'no version'}{state}")
    if health.actions:
        out += ["", "action needed:"]
        out += [f"  {a.subject}: {a.problem}\n    run: {a.remedy}" for a in health.actions]
    waiting = f" ({health.waiting} root(s) waiting for their daemon)" if health.waiting else ""
    out += ["", f"doctor: healthy{waiting}" if health.healthy else f"doctor: action needed ({len(health.actions)})"]
    return "\n".join(out)


def _json(health: doctor.Health) -> dict[str, Any]:
    return {
        "roots": [
            {
                "path": str(h.root.path),
                "product": h.root.product,
                "sessions": h.sessions,
                "sidecars": h.sidecars,
                "links": {"diagnostics": h.link_diagnostics, "failing": h.link_failing},
                "contractViolations": h.violations,
                "explicit": h.root.explicit,
                "daemon": {
                    "state": h.daemon.state,
                    "url": h.daemon.url,
                    "origin": h.daemon.origin,
                    "path": h.daemon.path,
                    "detail": h.daemon.detail,
                    "csrf": h.daemon.csrf,
                    "tokenOrigin": h.daemon.token_origin,
                    "notes": list(h.daemon.notes),
                },
                "watch": {"state": h.watch, "pid": h.watcher},
            }
            for h in health.roots
        ],
        "agy": {
            "installed": health.installed,
            "recorded": health.recorded,
            "compatFile": str(health.compat_file),
            "state": health.version,
        },
        "actions": [{"subject": a.subject, "problem": a.problem, "remedy": a.remedy} for a in health.actions],
    }
