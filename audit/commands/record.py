"""``agy-audit record``: a new baseline from a complete sweep, and COMPATIBILITY.md regenerated."""

from __future__ import annotations

import argparse

from audit.actions.record import record
from audit.commands import project
from audit.commands.common import add_progress, add_quiet, print_json, progress_of
from audit.errors import EXIT_OK
from audit.report.drift_report import recorded_json, recorded_text


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "record",
        help="record a baseline from a complete sweep corpus and regenerate COMPATIBILITY.md",
        description=(
            "Fingerprint every surface the sweep corpus PATH holds, write BASELINE_DIR/NAME/ (one <surface>.tsv per "
            "surface and baseline.json, which marks the surfaces the corpus does not hold 'absent' with the reason) "
            "and regenerate the compatibility record wholesale. Refused, with nothing written, when the manifest is "
            "missing or not complete, the corpus holds no surface, a file cannot be read, the corpus violates the "
            "format contract (advisories do not count), or the baseline exists. A name agy-X.Y.Z claims an agy version: "
            "unless agy --version (as the sweep recorded it, else now) confirms it, it is a usage error (exit 2), or with "
            "--unverified-name recorded marked unverified."
        ),
        epilog="Exit codes: 0 recorded, 1 refused, 2 usage or unreadable input.",
    )
    p.add_argument("path", metavar="PATH", help="sweep corpus directory (from `agy-audit sweep`)")
    p.add_argument("--name", required=True, metavar="agy-X.Y.Z", help="baseline name, e.g. agy-1.2.11")
    p.add_argument(
        "--unverified-name",
        action="store_true",
        help="record a name whose agy version agy --version does not confirm, marked unverified in baseline.json",
    )
    p.add_argument("--baseline-dir", metavar="DIR", help="where baselines live (default: the project's, ./fingerprints)")
    p.add_argument(
        "--compat-file",
        metavar="FILE",
        help="compatibility record to regenerate from the baselines in --baseline-dir (default: the project's, "
        "./COMPATIBILITY.md)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    add_quiet(p)
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = project.load()
    compat_file = args.compat_file or config.compat_file
    baseline_dir = args.baseline_dir or config.baseline_dir
    baseline, _ = record(
        args.path,
        args.name,
        baseline_dir=baseline_dir,
        compat_file=compat_file,
        project_dir=config.directory,
        progress=progress_of(args),
        unverified_name=args.unverified_name,
    )
    if args.format == "json":
        print_json("record", EXIT_OK, recorded_json(baseline, compat_file))
    else:
        print(recorded_text(baseline, compat_file))
    return 0
