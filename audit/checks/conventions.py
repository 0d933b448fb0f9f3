"""Content conventions of brain transcripts: which documented headers, markers and sentences the
records of each tier and step type carry -- presence and how many per record, never their text.

Readers parse these out of a record's ``content`` (docs/store-format.md#content-conventions; deja-vu
``internal/sources/antigravity.go`` @b264ec72: the command of a RUN_COMMAND or GENERIC step from
its ``Task Description:`` line, the file of a VIEW_FILE, CODE_ACTION or LIST_DIRECTORY step from a
``File Path:`` or ``Created file`` line, ``Created At:`` headers skipped, the ``<USER_REQUEST>``
wrapper of a prompt). If agy drops or renames one, the JSON keys stay as they were and no other
surface changes; this one does. Each convention is looked for only on the step types it is
documented on (``CONVENTIONS``), so a model quoting one in prose adds nothing.

One line per tier, step type and convention, for every step type of a tier that has records:
``<tier>.<TYPE>.<convention><TAB><forms>``, the forms being the ``|``-joined set of how often
records of that type carry it -- ``none``, ``one`` or ``many`` (twice or more). A convention that
is lost shows as ``none`` where there was ``one``; one that appears as ``one`` where there was
``none``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

NONE, ONE, MANY = "none", "one", "many"
_PROSE = frozenset({"USER_INPUT", "PLANNER_RESPONSE"})
"""Step types whose content is the user's or the model's own text: no tool-result header there."""


@dataclass(frozen=True)
class Convention:
    name: str  # the line's last segment
    what: str  # what it is, as docs/store-format.md#content-conventions says
    marker: str  # a regular expression of the marker's own text (format, never content)
    types: frozenset[str] | None  # the step types it is documented on; None: every tool result (not _PROSE)
    line_start: bool = False  # only at the start of a line, leading blanks allowed (as deja-vu trims each line)
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        anchor = r"^[ \t]*" if self.line_start else ""
        object.__setattr__(self, "pattern", re.compile(anchor + self.marker, re.M))

    def applies(self, step_type: str) -> bool:
        return step_type not in _PROSE if self.types is None else step_type in self.types


def _line(name: str, what: str, label: str, types: frozenset[str] | None) -> Convention:
    """A convention that is a line starting with *label*."""
    return Convention(name, what, re.escape(label), types, line_start=True)


CONVENTIONS = (
    Convention(
        "user-request", "the `<USER_REQUEST>` wrapper of a prompt", re.escape("<USER_REQUEST>"), frozenset({"USER_INPUT"})
    ),
    _line("created-at", "a `Created At:` header line (local time)", "Created At:", None),
    _line("completed-at", "a `Completed At:` header line", "Completed At:", None),
    _line(
        "task-description",
        "a `Task Description:` line (an async command, a timer)",
        "Task Description:",
        frozenset({"RUN_COMMAND", "GENERIC"}),
    ),
    _line("file-path", "a `File Path:` line naming the file", "File Path:", frozenset({"VIEW_FILE", "LIST_DIRECTORY"})),
    Convention(
        "changes-made",
        "the sentence `The following changes were made by the <tool> tool to: <path>`",
        r"The following changes were made by the \S+ tool to: ",
        frozenset({"CODE_ACTION"}),
        line_start=True,
    ),
    _line("created-file", "a `Created file <uri>` line", "Created file ", frozenset({"CODE_ACTION"})),
    Convention(
        "diff-block-start", "the `[diff_block_start]` marker", re.escape("[diff_block_start]"), frozenset({"CODE_ACTION"})
    ),
    Convention("diff-block-end", "the `[diff_block_end]` marker", re.escape("[diff_block_end]"), frozenset({"CODE_ACTION"})),
)
"""Every convention the surface looks for, in line order of the manual's table (docs/reference/fingerprint.md)."""

MARKERS = "|".join(c.marker for c in CONVENTIONS)
"""Any convention's marker text: what ``agy-audit redact`` keeps in content so a redacted copy keeps
this surface."""


def count(text: str, convention: Convention) -> str:
    """How often *text* carries *convention*: ``none``, ``one`` or ``many``."""
    found = 0
    for _ in convention.pattern.finditer(text):
        found += 1
        if found > 1:
            return MANY
    return ONE if found else NONE


@dataclass
class Conventions:
    """The forms seen per (tier, step type, convention); fed one record at a time."""

    forms: dict[tuple[str, str, str], set[str]] = field(default_factory=dict)
    _applying: dict[str, tuple[Convention, ...]] = field(default_factory=dict, repr=False)

    def add(self, tier: str, step_type: object, content: object) -> None:
        """One record of *tier*: its ``type`` and its ``content`` (absent or not text: none held)."""
        if type(step_type) is not str:
            return
        applying = self._applying.get(step_type)
        if applying is None:
            applying = self._applying[step_type] = tuple(c for c in CONVENTIONS if c.applies(step_type))
        text = content if type(content) is str else ""
        for convention in applying:
            self.forms.setdefault((tier, step_type, convention.name), set()).add(count(text, convention))

    def merge(self, other: Conventions) -> None:
        for key, forms in other.forms.items():
            self.forms.setdefault(key, set()).update(forms)

    def lines(self) -> Iterable[str]:
        for (tier, step_type, name), forms in self.forms.items():
            yield f"{tier}.{step_type}.{name}\t{'|'.join(sorted(forms))}"
