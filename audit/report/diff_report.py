"""``agy-audit diff`` reports: text, JSON and Markdown of value-level differences. Never computes."""

from __future__ import annotations

from typing import Any

from audit.checks.diff import KINDS, Change, Difference, Report
from audit.strictjson import dumps

_SHOWN_CHARS = 80  # text and Markdown: a value longer than this is cut (JSON keeps it whole)


def _value(value: object) -> str:
    """A value as compact JSON text (control characters escaped), cut to a readable length."""
    text = dumps(value, indent=None)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _detail(change: Change) -> str:
    if change.kind == "added":
        return _value(change.new)
    if change.kind == "removed":
        return _value(change.old)
    return f"{_value(change.old)} -> {_value(change.new)}"


def _counts(pair: Difference) -> str:
    counts = pair.counts()
    return ", ".join(f"{counts[k]} {k}" for k in KINDS if counts[k]) or "no differences"


def text(report: Report) -> str:
    lines = []
    for pair in report.pairs:
        lines.append(f"{pair.a} vs {pair.b}: {_counts(pair)}")
        width = max((len(c.kind) for c in pair.changes), default=0)
        lines += [f"  {c.kind.ljust(width)}  {c.path or '(the document)'}: {_detail(c)}" for c in pair.changes]
    lines += [f"only in A: {name}" for name in report.only_a]
    lines += [f"only in B: {name}" for name in report.only_b]
    different = sum(not p.same for p in report.pairs)
    lines.append(
        f"diff: {len(report.pairs)} pair(s) compared, {different} different, "
        f"{len(report.only_a)} only in A, {len(report.only_b)} only in B"
    )
    return "\n".join(lines) + "\n"


def to_json(report: Report) -> dict[str, Any]:
    return {
        "pairs": [
            {
                "a": p.a,
                "b": p.b,
                "ignored": list(p.ignored),
                "counts": p.counts(),
                "changes": [{"kind": c.kind, "path": c.path, "old": c.old, "new": c.new} for c in p.changes],
            }
            for p in report.pairs
        ],
        "onlyA": report.only_a,
        "onlyB": report.only_b,
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: Report) -> str:
    out = ["# agy-audit diff", ""]
    for pair in report.pairs:
        out += [f"## `{_cell(pair.a)}` vs `{_cell(pair.b)}`", "", _counts(pair), ""]
        if pair.changes:
            out += ["| kind | path | value |", "| --- | --- | --- |"]
            out += [f"| {c.kind} | `{_cell(c.path or '(the document)')}` | `{_cell(_detail(c))}` |" for c in pair.changes]
            out.append("")
    for side, names in (("A", report.only_a), ("B", report.only_b)):
        out += [f"- only in {side}: `{_cell(name)}`" for name in names]
    return "\n".join(out).rstrip("\n") + "\n"
