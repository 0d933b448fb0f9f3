"""``agy-audit verify-contract``: sidecars, brain transcripts or sweep manifests against the bundled schemas."""

from __future__ import annotations

import argparse
from typing import Any

from audit.checks import contract, schemas
from audit.checks.schemas import ADVISORY, VIOLATION
from audit.commands.common import add_format, add_progress, add_quiet, progress_of
from audit.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError
from audit.progress import step
from audit.report import junit
from audit.report.text import table, to_json


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "verify-contract",
        help="check sidecars, transcripts, manifests or consumer profiles against the JSON Schemas",
        description="Check files against the bundled Draft 2020-12 schemas: strict JSON first (duplicate keys, "
        "NaN, invalid UTF-8, non-object top level), then every schema rule. Directories are searched "
        "recursively (*.trajectory.json, *.jsonl, manifest.json or, for --kind profile, *.json). Advisories (e.g. a free-form "
        "step status) are reported but never fail. Exit 0 all valid, 1 violations, 2 unreadable input or "
        "usage, 3 nothing found.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="file or directory")
    p.add_argument("--kind", choices=tuple(contract.KINDS), default="sidecar", help="what the files are (default sidecar)")
    p.add_argument(
        "--schema",
        nargs="?",
        const="",
        metavar="NAME",
        help="print the bundled schema NAME and exit (without NAME: list the names)",
    )
    add_format(p, "text", "json", "junit")
    add_quiet(p)
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.schema is not None:
        print(schemas.text(args.schema) if args.schema else "\n".join(schemas.names()), end="" if args.schema else "\n")
        return EXIT_OK
    if not args.paths:
        raise UsageError("verify-contract: give at least one PATH (or --schema)")
    with step(progress_of(args), "verify-contract", "files") as bar:
        report = contract.verify_paths(args.paths, args.kind, progress=bar)
    if args.format == "json":
        print(to_json(_report_json(report)), end="")
    elif args.format == "junit":
        print(junit.render([_suite(report)]), end="")
    else:
        print(_text(report))
    if report.unreadable:
        return EXIT_USAGE
    return EXIT_FINDINGS if report.invalid else EXIT_OK


def _where(f: contract.Finding) -> str:
    line = f":{f.line}" if f.line is not None else ""
    return f"{f.file}{line} {f.pointer or '/'}"


def _text(report: contract.Report) -> str:
    out = []
    for r in report.files:
        if r.error is not None:
            out.append(f"{r.file}: unreadable: {r.error}")
        for f in r.findings:
            out.append(f"{_where(f)} [{f.rule}]{' advisory:' if f.level == ADVISORY else ''} {f.message}")
    for s in report.skipped:
        out.append(f"{s.path}: skipped: {s.reason}")
    for level, title in ((VIOLATION, "VIOLATIONS"), (ADVISORY, "ADVISORIES")):
        counts = report.counts(level)
        if counts:
            out += ["", table(("RULE", title), list(counts.items()))]
    total, bad, unreadable = len(report.files), len(report.invalid), len(report.unreadable)
    out += [
        "",
        f"{report.kind}: {total} file(s) checked, {total - bad - unreadable} valid, {bad} with violations, "
        f"{unreadable} unreadable; {sum(report.counts(VIOLATION).values())} violation(s), "
        f"{sum(report.counts(ADVISORY).values())} advisory(ies)",
    ]
    return "\n".join(out).lstrip("\n")


def _finding_json(f: contract.Finding) -> dict[str, Any]:
    return {"pointer": f.pointer, "line": f.line, "rule": f.rule, "message": f.message}


def _report_json(report: contract.Report) -> dict[str, Any]:
    return {
        "kind": report.kind,
        "valid": not report.invalid and not report.unreadable,
        "summary": {
            "files": len(report.files),
            "invalid": len(report.invalid),
            "unreadable": len(report.unreadable),
            "violations": report.counts(VIOLATION),
            "advisories": report.counts(ADVISORY),
        },
        "files": [
            {
                "file": r.file,
                "valid": r.valid,
                "records": r.records,
                "error": r.error,
                "violations": [_finding_json(f) for f in r.violations],
                "advisories": [_finding_json(f) for f in r.advisories],
            }
            for r in report.files
        ],
        "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
    }


def _suite(report: contract.Report) -> junit.Suite:
    cases = []
    for r in report.files:
        violations = r.violations
        cases.append(
            junit.Case(
                name=r.file,
                classname=f"verify-contract.{report.kind}",
                error=f"unreadable: {r.error}" if r.error is not None else None,
                failure=f"{len(violations)} violation(s): {', '.join(sorted({f.rule for f in violations}))}"
                if violations
                else None,
                details="\n".join(f"{_where(f)} [{f.rule}] {f.message}" for f in violations),
                output="\n".join(f"{_where(f)} [{f.rule}] advisory: {f.message}" for f in r.advisories),
            )
        )
    return junit.Suite(f"verify-contract {report.kind}", cases)
