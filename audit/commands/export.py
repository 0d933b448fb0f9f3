"""``agy-audit export``: one session's offline trajectory from its ``.db`` (or brain transcript)."""

from __future__ import annotations

import argparse
import sys

from audit.actions.export import export_session
from audit.checks import contract
from audit.commands.common import add_format, add_key_file, inform, legacy_key, roots_from, tell_located, user_path
from audit.errors import FindingsError
from audit.report import export_report
from audit.report.markdown import trajectory_markdown
from audit.safewrite import create_durable_file
from audit.store import layout
from audit.strictjson import dumps


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "export",
        parents=[parents["store"]],
        help="offline trajectory of one session",
        description=(
            "Rebuild one session's trajectory without the daemon: from its .db (read-only snapshot, "
            "WAL included), else from its legacy .pb read with your own key, else from its brain transcript. The result is checked against the sidecar "
            "schema before anything is written. It is refused only when the steps themselves cannot be "
            "decoded; other problems (and enum values written as numbers) are noted on stderr."
        ),
    )
    p.add_argument("id", help="conversation id or unique prefix of at least 8 characters")
    p.add_argument("--out", type=user_path, metavar="NEW_FILE", help="write to this new file (0600; an existing path is refused)")
    add_key_file(p)
    add_format(p, "json", "md")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    scans = layout.scan(layout.require_roots(roots_from(args)), include_implicit=args.include_implicit)
    located = layout.locate_session(scans, args.id)
    session = located.session
    tell_located(args, located)
    result = export_session(session, legacy_key(args))
    if result.blocking:  # the steps themselves could not be decoded: nothing trustworthy to write
        shown = "; ".join(result.blocking[:3])
        more = f" (+{len(result.blocking) - 3} more; see agy-audit inspect {session.id})" if len(result.blocking) > 3 else ""
        raise FindingsError(f"{result.path}: not exported, the source has problems: {shown}{more}")
    check = contract.validate_document(result.trajectory, "sidecar", file=f"export of {session.id}")
    if check.errors:
        first = check.errors[0]
        raise FindingsError(f"{session.id}: export does not satisfy the sidecar schema: {first.pointer or '/'}: {first.message}")
    # content left out, and enum values written as numbers: findings about the export, never hidden
    for line in export_report.notes(result, check):
        print(line, file=sys.stderr)
    if args.format == "md":
        text = trajectory_markdown(result.trajectory)
    else:
        text = dumps(result.trajectory, indent=2) + "\n"
    if args.out:
        create_durable_file(args.out, text.encode("utf-8"))
        count = len(result.trajectory.get("steps", []))
        inform(args, f"exported {session.id} from its {result.source} ({count} steps) to {args.out}")
    else:
        sys.stdout.write(text)
    return 0
