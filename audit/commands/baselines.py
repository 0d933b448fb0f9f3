"""``agy-audit baselines``: list bundled and own baselines; import an agy-reader shape snapshot."""

from __future__ import annotations

import argparse

from audit.actions import baseline_writer, compat
from audit.checks import baselines
from audit.commands import project
from audit.commands.common import print_json
from audit.errors import EXIT_OK
from audit.report.drift_report import baselines_json, baselines_text, imported_text


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "baselines",
        help="list baselines; import an agy-reader shape snapshot",
        description="List the bundled baselines and those in --baseline-dir (oldest agy version first).",
        epilog="Exit codes: 0 ok, 2 usage or unreadable input.",
    )
    p.add_argument("--baseline-dir", metavar="DIR", help="your own baselines directory (default: the project's, ./fingerprints)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    p.set_defaults(run=run)
    sub = p.add_subparsers(dest="baselines_command", metavar="{import-shape}")
    imp = sub.add_parser(
        "import-shape",
        help="import an agy-reader sidecar shape snapshot (TSV) as a baseline",
        description=(
            "Check that the sha256 of TSV without its final newline equals --digest (or the digest agy-reader "
            "published for NAME), then write BASELINE_DIR/NAME/ with sidecar.tsv and baseline.json."
        ),
        epilog="Exit codes: 0 imported, 2 usage, unreadable input or digest mismatch.",
    )
    imp.add_argument("tsv", metavar="TSV")
    imp.add_argument("--name", required=True, metavar="NAME", help="baseline name, e.g. agy-1.2.10")
    imp.add_argument("--digest", metavar="sha256:HEX", help="expected digest (default: the published one for NAME)")
    imp.add_argument(
        "--baseline-dir", default=argparse.SUPPRESS, metavar="DIR", help="where to write (default: the project's, ./fingerprints)"
    )
    imp.add_argument("--compat-file", metavar="FILE", help="also regenerate this compatibility record from BASELINE_DIR")
    imp.set_defaults(run=run_import)


def run(args: argparse.Namespace) -> int:
    found = baselines.available(args.baseline_dir or project.load().baseline_dir)
    if args.format == "json":
        print_json("baselines", EXIT_OK, baselines_json(found))
    else:
        print(baselines_text(found))
    return 0


def run_import(args: argparse.Namespace) -> int:
    config = project.load()
    directory = args.baseline_dir or config.baseline_dir
    baseline = baseline_writer.import_shape(args.tsv, args.name, digest=args.digest)
    listed = baselines.listing(directory) + [baseline]
    text = compat.render(listed, compat.location(directory, config.directory)) if args.compat_file else None
    baseline_writer.write(baseline, directory)
    if text is not None:
        compat.write(args.compat_file, text)
    if args.format == "json":
        print_json("baselines import-shape", EXIT_OK, baselines_json([baseline]))
    else:
        print(imported_text(baseline))
    return 0
