"""``agy-audit consistency``: each conversation ``.db`` against its brain transcripts and its own invariants."""

from __future__ import annotations

import argparse
from typing import Any

from audit.checks import consistency
from audit.checks.consistency import ADVISORY, VIOLATION
from audit.commands.common import add_format, add_progress, progress_of, roots_from
from audit.errors import UsageError
from audit.progress import step
from audit.report import junit
from audit.report.text import table, to_json
from audit.store import layout


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "consistency",
        parents=[parents["store"]],
        help="check each .db against its brain transcripts and its own invariants",
        description="For every session with a conversation .db: the .db's invariants (token accounting, generation "
        "ids, unique responseIds, tool results answering earlier calls), and where the session has brain "
        "transcripts, every transcript record (compact, full and overview tiers) against the .db step of the same "
        "index: type, status, createdAt to the second, source, user prompt, response, thinking, tool-call names and "
        "arguments, run_command command line and exit code, error text and code. Status lag, transcript windows, "
        "gaps and steps beyond the .db are advisories. PATH: a store root, a sweep corpus, a directory of .db "
        "files or a <uuid>.db; without PATH the discovered (or --home/--root) stores. Exit 0 no disagreement, "
        "1 disagreements or invariant breaches, 2 unreadable input or usage, 3 no .db found.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="store root, sweep corpus, directory of .db files or .db file")
    add_format(p, "text", "json", "junit")
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.paths and (args.home is not None or args.root):
        raise UsageError("consistency: give PATHs or --home/--root, not both")
    roots = None if args.paths else layout.require_roots(roots_from(args))
    with step(progress_of(args), "consistency", "sessions") as bar:
        if roots is None:
            report = consistency.check(args.paths, progress=bar)
        else:
            report = consistency.check_roots(roots, progress=bar)
    if args.format == "json":
        print(to_json(report_json(report)), end="")
    elif args.format == "junit":
        print(junit.render([suite(report)]), end="")
    else:
        print(text(report))
    return report.exit_code


def _where(f: consistency.Finding) -> str:
    if f.file is None:
        return ""
    return f"{f.file}:{f.line}: " if f.line is not None else f"{f.file}: "


def _line(f: consistency.Finding) -> str:
    return f"{_where(f)}[{f.rule}]{' advisory:' if f.level == ADVISORY else ''} {f.message}"


def text(report: consistency.Report) -> str:
    rows = [
        [
            r.id,
            r.verdict,
            r.db_steps,
            ", ".join(f"{tier} {n}/{r.records[tier]}" for tier, n in r.joined.items()) or "-",
            len(r.violations),
            len(r.advisories),
        ]
        for r in report.results
    ]
    out = [table(["ID", "VERDICT", "DB STEPS", "JOINED (tier joined/records)", "VIOLATIONS", "ADVISORIES"], rows)]
    findings = [f for r in report.results for f in r.findings]
    if findings:
        out += [""] + [_line(f) for f in findings]
    for level, title in ((VIOLATION, "VIOLATIONS"), (ADVISORY, "ADVISORIES")):
        counts = report.rule_counts(level)
        if counts:
            out += ["", table(("RULE", title), list(counts.items()))]
    counts = report.counts()
    violations = sum(report.rule_counts(VIOLATION).values())
    advisories = sum(report.rule_counts(ADVISORY).values())
    out += [
        "",
        f"consistency: {len(report.results)} session(s): "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + f"; {violations} violation(s), {advisories} advisory(ies)",
    ]
    return "\n".join(out)


def _finding_json(f: consistency.Finding) -> dict[str, Any]:
    return {"level": f.level, "rule": f.rule, "step": f.step, "file": f.file, "line": f.line, "message": f.message}


def report_json(report: consistency.Report) -> dict[str, Any]:
    return {
        "ok": report.exit_code == 0,
        "summary": {
            "sessions": len(report.results),
            **report.counts(),
            "violations": report.rule_counts(VIOLATION),
            "advisories": report.rule_counts(ADVISORY),
        },
        "results": [
            {
                "id": r.id,
                "db": str(r.db),
                "brain": None if r.brain is None else str(r.brain),
                "verdict": r.verdict,
                "dbSteps": r.db_steps,
                "records": r.records,
                "joined": r.joined,
                "violations": [_finding_json(f) for f in r.violations],
                "advisories": [_finding_json(f) for f in r.advisories],
            }
            for r in report.results
        ],
    }


def suite(report: consistency.Report) -> junit.Suite:
    cases = []
    for r in report.results:
        violations = r.violations
        unreadable = r.verdict == consistency.UNREADABLE
        cases.append(
            junit.Case(
                name=r.id,
                classname="consistency",
                error=f"unreadable: {violations[0].message}" if unreadable else None,
                failure=f"{len(violations)} violation(s): {', '.join(sorted({f.rule for f in violations}))}"
                if violations and not unreadable
                else None,
                details="\n".join(_line(f) for f in violations),
                output="\n".join(_line(f) for f in r.advisories),
            )
        )
    return junit.Suite("consistency", cases)
