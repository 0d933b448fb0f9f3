"""Formatters for ``agy-audit doctor``: the health of every root (sessions, sidecars, parent links,
contract violations, daemon, token, watcher), the agy version and the actions needed, as text and
JSON. Formatters only: the health comes judged (``audit.pipeline.doctor``)."""

from __future__ import annotations

from typing import Any

from audit.pipeline import doctor
from audit.report.text import table


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


def text(health: doctor.Health) -> str:
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


def result_json(health: doctor.Health) -> dict[str, Any]:
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
