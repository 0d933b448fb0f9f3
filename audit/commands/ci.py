"""``agy-audit ci``: sweep, verify-contract, completeness, links, fingerprint and compare in one run."""

from __future__ import annotations

import argparse
import os
import sys

from audit.actions.sweep import SOURCES
from audit.commands import project
from audit.commands.common import (
    add_key_file,
    add_progress,
    add_report_flags,
    add_selection,
    legacy_key,
    progress_of,
    report_formats,
    roots_from,
    seconds,
    selection_from,
    user_path,
)
from audit.commands.compare import add_consumer_flags
from audit.csrf import scrub
from audit.errors import UsageError
from audit.pipeline import ci
from audit.pipeline.ci_results import Report
from audit.report import ci_report, html_report, sarif
from audit.report.text import to_json, use_color
from audit.safewrite import append, atomic_write
from audit.store import layout

FORMATS = ("text", "json", "junit", "markdown", "github", "html", "sarif")
REPORT_FORMATS = {".json": "json", ".xml": "junit", ".md": "markdown", ".txt": "text", ".html": "html", ".sarif": "sarif"}
STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "ci",
        parents=[parents["store"]],
        help="sweep and check every store against the baseline, in one report",
        description=(
            "Sweep every store into a private corpus, then verify-contract (corpus manifest, sidecars and "
            "transcripts), completeness, consistency, links, fingerprint, compare against the baseline and the "
            "verdict of each consumer profile on that drift; the live sidecars "
            "(what consumers read) are checked too unless --no-live. One report: a verdict per stage and check, "
            "the first findings of each check and the command that lists all of them."
        ),
        epilog=(
            "Exit codes: 0 every check passed (or was skipped), 1 findings (drift or a consumer that breaks, per "
            "--fail-on), 2 usage or "
            "environment errors (a check could not run), 3 no store or nothing to sweep, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM)."
        ),
    )
    p.add_argument(
        "--source",
        choices=SOURCES,
        default="auto",
        help="daemon, native (reconstruct from .db files) or auto (default: daemon where reachable)",
    )
    p.add_argument("--timeout", type=seconds, default=30.0, metavar="SECONDS", help="per daemon call (default 30)")
    p.add_argument("--allow-remote-daemon", action="store_true", help="accept a daemon endpoint that is not a loopback address")
    add_selection(p)
    add_key_file(p)
    p.add_argument(
        "--out",
        type=user_path,
        metavar="NEW_DIR",
        help="corpus directory to create and keep (default: a new private temp directory, removed when the run ends)",
    )
    p.add_argument(
        "--keep", action="store_true", help="keep the temp corpus (default: removed when the run ends, passing or not)"
    )
    p.add_argument(
        "--baseline",
        metavar="NAME|DIR",
        help="baseline to compare with (default: the newest in --baseline-dir, else the newest bundled)",
    )
    p.add_argument(
        "--baseline-dir",
        metavar="DIR",
        help="your own baselines (searched first; --record writes here; default: the project's, ./fingerprints)",
    )
    add_consumer_flags(p)
    p.add_argument(
        "--record",
        nargs="?",
        const=ci.AUTO,
        metavar="agy-X.Y.Z",
        help="record the corpus as this baseline (alone: agy-<installed version>) when, and only when, every "
        "check passed; with no drift and nothing new against the baseline it is recorded as compatible",
    )
    p.add_argument(
        "--unverified-name",
        action="store_true",
        help="with --record agy-X.Y.Z: record a name agy --version does not confirm, marked unverified",
    )
    p.add_argument(
        "--compat-file",
        metavar="FILE",
        help="compatibility record --record regenerates (default: the project's, ./COMPATIBILITY.md)",
    )
    p.add_argument(
        "--no-live",
        dest="live",
        action="store_false",
        help="check only the swept corpus, not the live sidecars (stale or hand-edited sidecars then never fail)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        choices=(1, 2),
        help="processes: 1 checks each swept session in the sweeping process, 2 in a second process while the "
        f"sweep goes on (default: 2 from {ci.PARALLEL_FROM} sessions when a second CPU is free); the report is the same",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (default), json, junit, markdown, github (workflow annotations and the text report; "
        f"the Markdown is appended to ${STEP_SUMMARY} when set), html (one self-contained page), or sarif (SARIF 2.1.0, for code scanning)",
    )
    add_report_flags(p, REPORT_FORMATS)
    add_progress(p)
    p.set_defaults(run=run)


def _render(report: Report, fmt: str, *, color: bool = False) -> str:
    if fmt == "json":
        return to_json(ci_report.to_json(report))
    if fmt == "junit":
        return ci_report.junit_xml(report)
    if fmt == "markdown":
        return ci_report.markdown(report)
    if fmt == "html":
        return html_report.ci_page(report)
    if fmt == "sarif":
        return to_json(sarif.log("ci", report.exit_code, report.findings))
    if fmt == "github":
        return ci_report.github_annotations(report) + ci_report.text(report)
    return ci_report.text(report, color=color)


def run(args: argparse.Namespace) -> int:
    reports = report_formats(args, "ci", REPORT_FORMATS)
    if args.unverified_name and args.record in (None, ci.AUTO):
        raise UsageError("--unverified-name goes with --record agy-X.Y.Z (--record alone names the installed version)")
    key = legacy_key(args)
    config = project.load()
    roots = layout.require_roots(roots_from(args))
    report = ci.run(
        roots,
        out=args.out,
        keep=args.keep,
        source=args.source,
        timeout=args.timeout,
        allow_remote=args.allow_remote_daemon,
        include_implicit=args.include_implicit,
        baseline=args.baseline,
        baseline_dir=args.baseline_dir or config.baseline_dir,
        fail_on=args.fail_on or config.fail_on or "drift",
        profiles=args.consumer or config.consumers,
        record_as=args.record,
        unverified_name=args.unverified_name,
        compat_file=args.compat_file or config.compat_file,
        project_dir=config.directory,
        live=args.live,
        progress=progress_of(args),
        jobs=args.jobs,
        selection=selection_from(args),
        key=key,
    )
    sys.stdout.write(_render(report, args.format, color=use_color()))
    sys.stdout.flush()
    for path, fmt in reports.items():  # scrubbed of the token as stdout is (daemon content may quote it)
        atomic_write(path, scrub(_render(report, fmt)).encode("utf-8"))
    if args.format == "github" and os.environ.get(STEP_SUMMARY):
        append(os.environ[STEP_SUMMARY], scrub(ci_report.markdown(report)).encode("utf-8"))
    return report.exit_code
