"""``agy-audit mutate``: one mutated copy of a home's stores per plausible agy format change."""

from __future__ import annotations

import argparse
import sys

from audit.actions import mutate
from audit.commands.common import add_format, add_progress, add_quiet, home_of, print_json, progress_of, user_path
from audit.errors import EXIT_OK, UsageError
from audit.progress import step
from audit.report import conformance_report


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "mutate",
        help="write mutated copies of a home's stores, one per plausible agy format change",
        description=(
            "Copy the stores of --home (~/.gemini/antigravity*; only read) to OUT/original/home and, per mutation of the "
            "catalogue, to OUT/<mutation>/home with that format change applied; OUT/index.json (written last) says what "
            "each imitates and how much it changed. Point your reader's HOME at each copy. --list prints the catalogue."
        ),
        epilog="Exit codes: 0 written (or listed), 2 usage, unreadable input or an existing OUT, 3 no store found.",
    )
    add_selection(p)
    p.add_argument("--out", type=user_path, metavar="DIR", help="the directory to write (must not exist)")
    p.add_argument("--list", action="store_true", help="print the catalogue and exit")
    add_format(p)
    add_quiet(p)
    add_progress(p)
    p.set_defaults(run=run)


def add_selection(p: argparse.ArgumentParser) -> None:
    """``--home`` and ``--mutation`` (``mutate`` and ``conformance``)."""
    p.add_argument(
        "--home", type=user_path, metavar="DIR", help="the home whose ~/.gemini/antigravity* stores are copied (default $HOME)"
    )
    p.add_argument(
        "--mutation",
        action="append",
        choices=list(mutate.CATALOGUE),
        metavar="NAME",
        help="only this mutation (repeatable; default all)",
    )


def selected(args: argparse.Namespace) -> list[mutate.Mutation]:
    """The mutations ``--mutation`` names, in the order given, else the whole catalogue."""
    return [mutate.CATALOGUE[n] for n in dict.fromkeys(args.mutation)] if args.mutation else list(mutate.MUTATIONS)


def run(args: argparse.Namespace) -> int:
    mutations = selected(args)
    if args.list:
        if args.format == "json":
            print_json("mutate", EXIT_OK, {"mutations": [mutate.describe(m) for m in mutations]})
        else:
            sys.stdout.write(conformance_report.catalogue(mutations))
        return EXIT_OK
    if not args.out:
        raise UsageError("mutate: --out DIR is required (or --list)")
    with step(progress_of(args), "mutate", "mutations") as bar:
        index = mutate.write_copies(home_of(args), args.out, mutations, progress=bar)
    if args.format == "json":
        return print_json("mutate", EXIT_OK, index)
    print(conformance_report.copies_text(index, args.out))
    return EXIT_OK
