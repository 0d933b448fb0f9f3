"""``agy-audit conformance``: a reader's own command, run on a store and on every format mutation of it.

The stores of the home are copied once (``store_copy``: the source is only read). Each run gets a
fresh copy of that snapshot at the same path (so paths in the command's output compare equal),
with one mutation of the catalogue applied (``mutate``), and runs the command there
(``command.run``). The unmutated copy is run twice: its output is the baseline, and JSON paths that
differ between the two runs are volatile (a clock, a duration) and left out of every comparison.

Each mutation gets one outcome (``RESULTS``), decided in this order:

* ``crashed``: the run timed out, was ended by a signal, or exited non-zero with a code not
  declared loud (``loud_exits``);
* ``failed-loudly``: it exited with a declared loud code, or exited 0 writing a line to standard
  error that neither baseline run wrote (a warning its user sees);
* ``changed-silently``: it exited 0, warned nothing new, and its standard output differs;
* ``unchanged``: exit 0, no new warning, the same output;
* ``not-applicable``: the store holds nothing the mutation changes; the command is not run.

Nothing here prints; ``audit.report.conformance_report`` formats a ``Conformance``.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.actions.mutate import Mutation, apply_mutation
from audit.actions.store_copy import StoreCopy, copy_stores, remove_tree
from audit.checks import diff
from audit.errors import EXIT_FINDINGS, EXIT_NOTHING, EXIT_OK, InputError
from audit.pipeline import command
from audit.progress import Callback
from audit.safewrite import make_private_dir

CRASHED, LOUD, SILENT, UNCHANGED, NOT_APPLICABLE = "crashed", "failed-loudly", "changed-silently", "unchanged", "not-applicable"
RESULTS = (CRASHED, LOUD, SILENT, UNCHANGED, NOT_APPLICABLE)
FAIL_ON = {
    "silent": (SILENT,),
    "crash": (SILENT, CRASHED),
    "change": (SILENT, CRASHED, LOUD),
    "never": (),
}
"""``--fail-on``: the outcomes that fail the run (exit 1). ``crash`` (the default): data lost
silently, or the command stopped working."""
DEFAULT_TIMEOUT = 60.0
MAX_DIFFERENCES = 50
"""Differences listed per mutation (the rest are counted)."""
_SHORT = 200  # characters of a value or line shown in a difference


@dataclass(frozen=True)
class Difference:
    """One difference of the output: a JSON value (``kind`` as ``diff.KINDS``, ``path`` in its
    notation) or a line of text (``added`` / ``removed``, ``path`` ``line N``)."""

    kind: str
    path: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class Outcome:
    mutation: Mutation
    changed: int  # what the mutation changed in the copy (records, rows, files, directories)
    result: str  # one of RESULTS
    why: str  # one line
    run: command.Run | None  # None: not run (not applicable)
    differences: tuple[Difference, ...] = ()
    more: int = 0  # differences not listed
    new_stderr: tuple[str, ...] = ()


@dataclass(frozen=True)
class Conformance:
    argv: tuple[str, ...]
    home: str
    copied: StoreCopy
    baseline: command.Run
    output: str  # what the baseline printed: "json" or "text"
    volatile: tuple[str, ...]  # JSON paths that differ between two runs of the same copy
    outcomes: tuple[Outcome, ...]
    fail_on: str
    timeout: float

    @property
    def failing(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.result in FAIL_ON[self.fail_on])

    def count(self, result: str) -> int:
        return sum(o.result == result for o in self.outcomes)

    @property
    def exit_code(self) -> int:
        """1 when an outcome fails under ``fail_on``, 3 when no mutation applied, else 0."""
        if self.failing:
            return EXIT_FINDINGS
        return EXIT_NOTHING if all(o.result == NOT_APPLICABLE for o in self.outcomes) else EXIT_OK


def check(
    home: str | os.PathLike[str],
    argv: Sequence[str],
    mutations: Sequence[Mutation],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    fail_on: str = "crash",
    loud_exits: frozenset[int] = frozenset(),
    passed: Sequence[str] = (),
    progress: Callback | None = None,
) -> Conformance:
    """Run *argv* on the stores of *home* and on each of *mutations*; see the module docstring."""
    work = Path(tempfile.mkdtemp(prefix="agy-audit-conformance-"))
    try:
        snapshot = work / "store" / "home"
        copied = copy_stores(home, snapshot)
        runs = len(mutations) + 2

        def run(n: int, label: str, mutation: Mutation | None) -> tuple[int, command.Run | None]:
            if progress is not None:
                progress(n, runs, label)
            return _run_on_copy(snapshot, work / "run", mutation, argv, timeout, passed)

        _, first = run(0, "the store", None)
        _, second = run(1, "the store, again", None)
        assert first is not None and second is not None
        baseline = _baseline(argv, first, second, timeout)
        outputs = (_parse(first.stdout), _parse(second.stdout))
        volatile = _volatile(argv, *outputs)
        warned = set(_lines(first.stderr)) | set(_lines(second.stderr))
        outcomes = []
        for n, mutation in enumerate(mutations, 2):
            changed, done = run(n, mutation.name, mutation)
            outcomes.append(_judge(mutation, changed, done, outputs[0], volatile, warned, loud_exits, timeout))
        return Conformance(tuple(argv), str(home), copied, baseline, outputs[0][0], volatile, tuple(outcomes), fail_on, timeout)
    finally:
        remove_tree(work)


def _run_on_copy(
    snapshot: Path, place: Path, mutation: Mutation | None, argv: Sequence[str], timeout: float, passed: Sequence[str]
) -> tuple[int, command.Run | None]:
    """A fresh copy of *snapshot* at ``place/home`` with *mutation* applied, and the run of the
    command there (None when the mutation changed nothing); *place* is removed afterwards."""
    try:
        copy_stores(snapshot, place / "home")
        changed = apply_mutation(mutation, place / "home") if mutation is not None else 0
        if mutation is not None and not changed:
            return 0, None
        make_private_dir(place / "tmp")
        return changed, command.run(argv, place / "home", place / "tmp", timeout=timeout, passed=passed)
    finally:
        remove_tree(place)


def _baseline(argv: Sequence[str], first: command.Run, second: command.Run, timeout: float) -> command.Run:
    """The first run, when both succeeded: a command that fails on the unmutated store cannot be judged."""
    for run in (first, second):
        if run.timed_out or run.exit_code != 0:
            raise InputError(f"{argv[0]}: {_failure(run, timeout)} on the unmutated copy of the store; nothing can be judged")
    return first


def _parse(stdout: bytes) -> tuple[str, object]:
    """("json", the value) when *stdout* is one JSON document in UTF-8, else ("text", the text;
    bytes that are not UTF-8 as ``\\xNN``)."""
    try:
        text = stdout.decode("utf-8")
    except UnicodeDecodeError:
        return "text", stdout.decode("utf-8", "backslashreplace")
    try:
        return "json", json.loads(text)
    except ValueError:
        return "text", text


def _volatile(argv: Sequence[str], first: tuple[str, object], second: tuple[str, object]) -> tuple[str, ...]:
    """The JSON paths whose values differ between two runs on the same copy; an output that
    differs as a whole (text, or a JSON document replaced entirely) is an error: nothing of it
    would be left to compare."""
    if first == second:
        return ()
    if first[0] == second[0] == "json":
        paths = tuple(c.path for c in diff.changes(first[1], second[1], ignore=(), deepest=True))
        if "" not in paths:
            return paths
    (difference, *_), _ = _differences(first, second, ())
    raise InputError(
        f"{argv[0]}: its output differs between two runs on the same copy of the store ({_summary(difference)}); "
        "conformance compares outputs: make it print the same for the same store"
    )


def _judge(
    mutation: Mutation,
    changed: int,
    run: command.Run | None,
    baseline: tuple[str, object],
    volatile: tuple[str, ...],
    warned: set[str],
    loud_exits: frozenset[int],
    timeout: float,
) -> Outcome:
    if run is None:
        return Outcome(mutation, 0, NOT_APPLICABLE, "the store holds nothing this mutation changes", None)
    new_stderr = tuple(line for line in _lines(run.stderr) if line not in warned)
    if run.timed_out or run.exit_code is None or (run.exit_code and run.exit_code not in loud_exits):
        return Outcome(mutation, changed, CRASHED, _failure(run, timeout), run, new_stderr=new_stderr)
    output = _parse(run.stdout)
    found, more = _differences(baseline, output, volatile)
    if run.exit_code:
        why = f"exit {run.exit_code} (declared loud){_last_line(run.stderr)}"
        return Outcome(mutation, changed, LOUD, why, run, found, more, new_stderr)
    if new_stderr:
        return Outcome(mutation, changed, LOUD, f"warned on stderr: {new_stderr[0][:_SHORT]}", run, found, more, new_stderr)
    if found:
        total = len(found) + more
        why = f"{total} difference{'s' * (total != 1)} in its output, first: {_summary(found[0])}"
        return Outcome(mutation, changed, SILENT, why, run, found, more)
    return Outcome(mutation, changed, UNCHANGED, "the same output", run)


def _failure(run: command.Run, timeout: float) -> str:
    if run.timed_out:
        return f"timed out after {timeout:g} s (ended)"
    if run.signal is not None:
        return f"ended by {run.signal}{_last_line(run.stderr)}"
    return f"exit {run.exit_code}{_last_line(run.stderr)}"


def _last_line(stderr: bytes) -> str:
    lines = _lines(stderr)
    return f": {lines[-1][:_SHORT]}" if lines else ""


def _lines(data: bytes) -> list[str]:
    return [line.strip() for line in data.decode("utf-8", "backslashreplace").splitlines() if line.strip()]


def _differences(
    before: tuple[str, object], after: tuple[str, object], volatile: tuple[str, ...]
) -> tuple[tuple[Difference, ...], int]:
    """The differences between two outputs (JSON values by path, else lines), at most
    ``MAX_DIFFERENCES``, and how many more there are."""
    if before[0] == after[0] == "json":
        found = [
            Difference(c.kind, c.path, _json(c.old, c.kind != diff.ADDED), _json(c.new, c.kind != diff.REMOVED))
            for c in diff.changes(before[1], after[1], ignore=volatile, deepest=True)
        ]
    else:
        found = []
        if before[0] != after[0]:
            found.append(Difference(diff.CHANGED, "", f"{before[0]} output", f"{after[0]} output"))
        found += _line_differences(_text(before), _text(after))
    return tuple(found[:MAX_DIFFERENCES]), max(0, len(found) - MAX_DIFFERENCES)


def _text(output: tuple[str, object]) -> str:
    kind, value = output
    return value if kind == "text" else json.dumps(value, indent=2, ensure_ascii=False)  # type: ignore[return-value]


def _line_differences(old: str, new: str) -> list[Difference]:
    a, b = old.splitlines(), new.splitlines()
    found = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        found += [Difference(diff.REMOVED, f"line {i + 1}", a[i][:_SHORT], None) for i in range(i1, i2)]
        found += [Difference(diff.ADDED, f"line {j + 1}", None, b[j][:_SHORT]) for j in range(j1, j2)]
    return found


def _json(value: object, present: bool) -> str | None:
    if not present:
        return None
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def _summary(d: Difference) -> str:
    where = d.path or "the output"
    if d.kind == diff.ADDED:
        return f"added {where}: {d.new}"
    if d.kind == diff.REMOVED:
        return f"removed {where}: {d.old}"
    return f"{d.kind} {where}: {d.old} -> {d.new}"


DRAFT_CITE = "DRAFT: cite the line of your released code that reads this"
"""The ``cite`` of every draft entry: it fails the profile schema until replaced, so a draft
cannot pass for a profile (a profile's claims cite the code that reads)."""


def draft_profile(result: Conformance) -> dict[str, Any]:
    """A draft consumer profile (the shape of ``consumers/*.json``) from the outcomes: every path
    a mutation that crashed the command, made it fail loudly or changed its output touches is an
    entry it ``requires`` (merged per path, ``why`` naming the mutations). Marked as a draft in
    ``version``, ``describes`` and every ``cite``; it validates only once each entry is cited."""
    entries: dict[tuple[str, str], list[str]] = {}
    for o in result.outcomes:
        if o.result in (CRASHED, LOUD, SILENT):
            for where in o.mutation.reads:
                entries.setdefault(where, []).append(f"{o.mutation.name} ({o.mutation.title}): {o.result}")
    affected = [o.mutation.name for o in result.outcomes if o.result in (CRASHED, LOUD, SILENT) and not o.mutation.reads]
    unaffected = [o.mutation.name for o in result.outcomes if o.result == UNCHANGED]
    describes = f"DRAFT derived by agy-audit conformance from the outputs of: {' '.join(result.argv)}."
    if affected:
        describes += f" Also changed by mutations that only add ({', '.join(affected)}): it reads what it did not know."
    if unaffected:
        describes += f" Unchanged by: {', '.join(unaffected)}."
    return {
        "profile": 2,
        "name": "draft",
        "repository": "DRAFT/owner-name",
        "version": "DRAFT: the release of your reader these outcomes were measured on",
        "describes": describes,
        "entries": [
            {
                "surface": surface,
                "path": path,
                "mode": "requires",
                "cite": DRAFT_CITE,
                "why": "its output changed with " + "; ".join(why),
            }
            for (surface, path), why in entries.items()
        ],
    }
