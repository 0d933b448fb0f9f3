"""``agy-audit compare``: fingerprints of a corpus against a baseline, with a classified diff."""

from __future__ import annotations

import argparse
import sys

from audit.checks import baselines, consumers
from audit.checks.drift import FAIL_ON, compare, fingerprints_to_compare
from audit.checks.fingerprint import SURFACES
from audit.commands import project
from audit.commands.common import add_progress, add_quiet, add_report_flags, progress_of, report_formats
from audit.commands.fingerprint import INPUTS, add_surfaces, warn
from audit.errors import EXIT_FINDINGS, EXIT_OK
from audit.progress import step
from audit.report.consumers_report import results_json, results_markdown, results_text
from audit.report.drift_report import (
    comparison_json,
    comparison_markdown,
    comparison_text,
)
from audit.report.envelope import envelope
from audit.report.html_report import compare_page
from audit.report.text import to_json
from audit.safewrite import atomic_write

FORMATS = ("text", "json", "markdown", "html")
REPORT_FORMATS = {".json": "json", ".md": "markdown", ".txt": "text", ".html": "html"}


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "compare",
        help="compare fingerprints with a baseline (NEW / UNCHANGED / DRIFT / NOT COMPARABLE)",
        description=(
            "Compare the fingerprints of PATH with a baseline and classify every changed line: added, removed, "
            "type-changed, widened, narrowed; from a corpus that is not a complete sweep, missing lines are "
            "'not observed'. " + INPUTS + " PATH may also be, alone, a baseline directory or an agy-reader "
            "shape snapshot (*.tsv)."
        ),
        epilog=(
            "Exit codes: 0 no failing drift and no failing consumer, 1 drift or a consumer that breaks (per --fail-on), "
            "2 usage or unreadable input (also an invalid profile), 3 nothing to fingerprint."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--baseline",
        metavar="NAME|DIR",
        help="baseline name (e.g. agy-1.2.10) or directory (default: the newest in --baseline-dir, else the newest bundled)",
    )
    p.add_argument(
        "--baseline-dir",
        metavar="DIR",
        help="your own baselines, searched before the bundled ones (default: the project's, ./fingerprints)",
    )
    add_surfaces(p)
    add_consumer_flags(p)
    p.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default text; html: one self-contained page)"
    )
    add_report_flags(p, REPORT_FORMATS)
    p.add_argument("--verbose", "-v", action="store_true", help="text and html: also list the lines that were not observed")
    add_quiet(p)
    add_progress(p)
    p.set_defaults(run=run)


class FailOnChoices(tuple[str, ...]):
    """``--fail-on`` choices: the drift rules, and any ``consumer:NAME``."""

    def __contains__(self, value: object) -> bool:
        return consumers.is_fail_on(value)


def add_consumer_flags(p: argparse.ArgumentParser) -> None:
    """``--consumer`` and the repeatable ``--fail-on`` (shared with ``ci``)."""
    p.add_argument(
        "--consumer",
        action="append",
        metavar="NAME|FILE",
        help="judge the drift for this consumer: a bundled profile name or a profile file (repeatable; "
        "default every bundled profile, see `agy-audit consumers`)",
    )
    p.add_argument(
        "--fail-on",
        action="append",
        choices=FailOnChoices(FAIL_ON),
        metavar="|".join(FAIL_ON) + "|consumer:NAME",
        help="exit 1 on any drift (default), only on breaking changes (removed, type-changed, widened), or never; "
        "consumer:NAME (repeatable) fails only when that consumer breaks. Under drift and breaking a consumer "
        "that breaks fails too",
    )


def run(args: argparse.Namespace) -> int:
    reports = report_formats(args, "compare", REPORT_FORMATS)
    config = project.load()
    fail_on = consumers.parse_fail_on(args.fail_on or config.fail_on)
    profiles = consumers.resolve(args.consumer or config.consumers)
    consumers.check_fail_on(fail_on, profiles)
    baseline_dir = args.baseline_dir or config.baseline_dir
    baseline, why = baselines.given(args.baseline, baseline_dir) if args.baseline else baselines.newest(baseline_dir)
    with step(progress_of(args), "compare: fingerprint", "files") as bar:
        observed = fingerprints_to_compare(args.paths, tuple(dict.fromkeys(args.surface or SURFACES)), progress=bar)
    if observed.survey is not None:
        warn(observed.survey.problems)
    comparison = compare(baseline, observed, tuple(args.surface) if args.surface else None)
    results = consumers.judge_all(profiles, comparison, baseline, observed)
    fails = consumers.run_fails(comparison, results, fail_on)
    code = EXIT_FINDINGS if fails else EXIT_OK

    def render(fmt: str) -> str:
        if fmt == "json":
            doc = comparison_json(comparison, observed, fail_on=fail_on.drift)
            doc |= {"baselineReason": why, "failOn": fail_on.text, "consumers": results_json(results, fail_on)}
            return to_json(envelope("compare", code, doc))
        if fmt == "markdown":
            return comparison_markdown(comparison, observed, reason=why) + results_markdown(results)
        if fmt == "html":
            return compare_page(
                comparison, observed, results, reason=why, fail_on=fail_on, fails=fails, not_observed=args.verbose
            )
        return comparison_text(comparison, observed, verbose=args.verbose, reason=why) + results_text(
            results, verbose=args.verbose
        )

    sys.stdout.write(render(args.format))
    sys.stdout.flush()
    for path, fmt in reports.items():
        atomic_write(path, render(fmt).encode("utf-8"))
    return code
