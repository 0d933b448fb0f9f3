"""``agy-audit verify-contract``: sidecars, brain transcripts or sweep manifests against the bundled schemas."""

from __future__ import annotations

import argparse

from audit.checks import contract, schemas
from audit.commands.common import add_format, add_progress, add_quiet, print_json, progress_of
from audit.errors import EXIT_OK, UsageError
from audit.progress import step
from audit.report import contract_report, junit, sarif
from audit.report.text import to_json


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "verify-contract",
        help="check sidecars, transcripts, manifests or consumer profiles against the JSON Schemas",
        description="Check files against the bundled Draft 2020-12 schemas: strict JSON first (duplicate keys, "
        "NaN, invalid UTF-8, non-object top level), then every schema rule. Directories are searched "
        "recursively (*.trajectory.json, *.jsonl, manifest.json or, for --kind profile, *.json). Advisories (e.g. a free-form "
        "step status) are reported as warnings but never fail. Exit 0 all valid, 1 violations (errors), 2 unreadable input or "
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
    add_format(p, "text", "json", "junit", "sarif")
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
        print_json("verify-contract", report.exit_code, contract_report.result_json(report), report.findings)
    elif args.format == "junit":
        print(junit.render([contract_report.suite(report)]), end="")
    elif args.format == "sarif":
        print(to_json(sarif.log("verify-contract", report.exit_code, report.findings)), end="")
    else:
        print(contract_report.text(report))
    return report.exit_code
