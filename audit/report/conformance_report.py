"""The conformance report (``agy-audit conformance``) as text, JSON, JUnit XML and Markdown, and
the mutation catalogue and copies (``agy-audit mutate``). Formatters only: outcomes come decided.

The JSON shape is ``schemas/conformance-report.schema.json`` (``version`` 1)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from audit.actions.mutate import INDEX, Mutation
from audit.display import escape_for_terminal
from audit.pipeline import conformance as c
from audit.report import junit
from audit.report.markdown import table_cell

SHOWN = {
    c.CRASHED: "crashed",
    c.LOUD: "failed loudly",
    c.SILENT: "changed silently",
    c.UNCHANGED: "unchanged",
    c.NOT_APPLICABLE: "not applicable",
}
VERSION = 1


def _command(argv: Sequence[str]) -> str:
    return " ".join(escape_for_terminal(a) for a in argv)


def _run_facts(o: c.Outcome) -> dict[str, Any]:
    run = o.run
    if run is None:
        return {"exitCode": None, "signal": None, "timedOut": False, "seconds": None}
    return {"exitCode": run.exit_code, "signal": run.signal, "timedOut": run.timed_out, "seconds": round(run.seconds, 3)}


def to_json(result: c.Conformance) -> dict[str, Any]:
    return {
        "version": VERSION,
        "command": list(result.argv),
        "home": result.home,
        "timeout": result.timeout,
        "failOn": result.fail_on,
        "store": {
            "roots": result.copied.roots,
            "files": result.copied.files,
            "links": result.copied.links,
            "skipped": [{"path": p, "reason": r} for p, r in result.copied.skipped],
        },
        "baseline": {"output": result.output, "seconds": round(result.baseline.seconds, 3), "volatile": list(result.volatile)},
        "mutations": [
            {
                "name": o.mutation.name,
                "title": o.mutation.title,
                "imitates": o.mutation.imitates,
                "restsOn": o.mutation.rests_on,
                "changed": o.changed,
                "outcome": o.result,
                "fails": o in result.failing,
                "why": o.why,
                **_run_facts(o),
                "differences": [{"kind": d.kind, "path": d.path, "old": d.old, "new": d.new} for d in o.differences],
                "moreDifferences": o.more,
                "newStderr": list(o.new_stderr),
            }
            for o in result.outcomes
        ],
        "counts": {r: result.count(r) for r in c.RESULTS},
        "exitCode": result.exit_code,
    }


def _totals(result: c.Conformance) -> str:
    parts = [f"{result.count(r)} {SHOWN[r]}" for r in c.RESULTS]
    return f"{len(result.outcomes)} mutation(s): " + ", ".join(parts)


def _difference(d: c.Difference) -> str:
    where = d.path or "(the output)"
    if d.old is None:
        return f"+ {where}: {d.new}"
    if d.new is None:
        return f"- {where}: {d.old}"
    return f"~ {where}: {d.old} -> {d.new}"


def text(result: c.Conformance, *, verbose: bool = False) -> str:
    """One line per mutation (its outcome and why); below a failing one (every one with
    *verbose*) what changed in the output."""
    out = [
        f"conformance of: {_command(result.argv)}",
        f"store: {escape_for_terminal(result.home)} ({', '.join(result.copied.roots)}; {result.copied.files} files copied)",
        f"baseline: {result.output} output, exit 0"
        + (f"; volatile, left out: {', '.join(result.volatile)}" if result.volatile else ""),
    ]
    out += [f"skipped: {escape_for_terminal(p)}: {escape_for_terminal(r)}" for p, r in result.copied.skipped]
    width = max((len(o.mutation.name) for o in result.outcomes), default=0)
    out.append("")
    for o in result.outcomes:
        mark = "FAIL " if o in result.failing else "     "
        out.append(f"{mark}{o.mutation.name:<{width}}  {SHOWN[o.result]}: {escape_for_terminal(o.why)}")
        if verbose or o in result.failing:
            out += [f"{'':7}{escape_for_terminal(_difference(d))}" for d in o.differences]
            if o.more:
                out.append(f"{'':7}... and {o.more} more")
    out += ["", _totals(result), f"fails on: {result.fail_on} ({len(result.failing)} failing)"]
    return "\n".join(out) + "\n"


def markdown(result: c.Conformance) -> str:
    out = [
        "## agy-audit conformance",
        "",
        f"Command: `{_command(result.argv).replace('`', '')}` — baseline: {result.output} output, exit 0.",
        "",
        "| mutation | imitates | outcome | why |",
        "| --- | --- | --- | --- |",
    ]
    for o in result.outcomes:
        outcome = f"**{SHOWN[o.result]}**" if o in result.failing else SHOWN[o.result]
        out.append(f"| `{o.mutation.name}` | {table_cell(o.mutation.imitates)} | {outcome} | {table_cell(o.why)} |")
    out += ["", f"{_totals(result)}; fails on `{result.fail_on}`: {len(result.failing)} failing."]
    for o in result.outcomes:
        if o.differences:
            out += ["", f"### `{o.mutation.name}`: what changed", "", "```"]
            out += [_difference(d).replace("```", "'''") for d in o.differences]
            out += [f"... and {o.more} more"] if o.more else []
            out.append("```")
    return "\n".join(out) + "\n"


def junit_xml(result: c.Conformance) -> str:
    """One test case per mutation: a failure when its outcome fails under ``--fail-on``, skipped
    when not applicable."""
    cases = []
    for o in result.outcomes:
        details = "\n".join(_difference(d) for d in o.differences) + (f"\n... and {o.more} more" if o.more else "")
        fails = o in result.failing
        cases.append(
            junit.Case(
                name=o.mutation.name,
                classname="agy-audit.conformance",
                failure=f"{SHOWN[o.result]}: {o.why}" if fails else None,
                skipped=o.why if o.result == c.NOT_APPLICABLE else None,
                details=details,
                output="" if fails else f"{SHOWN[o.result]}: {o.why}",
                time=o.run.seconds if o.run is not None else 0.0,
            )
        )
    return junit.render([junit.Suite(f"conformance: {_command(result.argv)}", cases)], name="agy-audit conformance")


def catalogue(mutations: Sequence[Mutation]) -> str:
    """``mutate --list``: each mutation's name, what changes, what it imitates, the fact it rests on."""
    out = []
    for m in mutations:
        out += [f"{m.name}: {m.title}", f"  imitates: {m.imitates}", f"  rests on: {m.rests_on}"]
    return "\n".join(out) + "\n"


def copies_text(index: dict[str, Any], out: str | os.PathLike[str]) -> str:
    """``mutate --out``: each mutation's copy (or why there is none), then the original and the
    index (*index* is what ``index.json`` holds, *out* the directory written)."""
    lines = []
    for entry in index["mutations"]:
        where = f"{escape_for_terminal(out)}/{entry['home']}" if entry["home"] else "no copy: the store holds nothing it changes"
        lines.append(f"{entry['name']}: {entry['changed']} changed; {where}")
    lines.append(
        f"original: {escape_for_terminal(out)}/{index['original']} ({index['files']} files); index: {escape_for_terminal(out)}/{INDEX}"
    )
    return "\n".join(lines)
