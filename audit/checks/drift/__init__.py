"""Compare fingerprints with a baseline: a status per surface and a classified line diff.

Status per surface: ``NEW`` (the baseline does not record it), ``UNCHANGED`` (same digest),
``DRIFT`` (lines changed, or the digest did) or ``NOT COMPARABLE`` (with the reason: not computed
here, or a partial corpus whose every line is in the baseline). A digest that differs is DRIFT
always: when one side kept only the digest the changes cannot be classified
(``SurfaceResult.classified`` is False, the reason says so, and ``--fail-on breaking`` fails too,
since an unknown change may be a breaking one).

Each changed line (``path<TAB>value``; a value is a ``|``-joined set) is one of: ``added``,
``removed``, ``type-changed``, ``widened`` (a type joins the set, e.g. ``string`` ->
``null|string``), ``narrowed`` (a type leaves it). From a corpus that is not a complete sweep a
missing path or type is ``not-observed`` instead of ``removed``/``narrowed``: an unexercised
feature is not evidence of removal. The scope is per line: in a complete sweep whose sidecars were
(partly) reconstructed offline, a missing key our ``.proto`` decodes (``native_observable``) is
``removed``; only a key the offline decoder cannot produce (daemon-only) is ``not-observed``. So it is when fingerprints computed here meet baseline lines
imported from a published record: that record was taken from another corpus, so a path the
stores swept here never exercised says nothing about agy (``Comparison.partial`` says why).

Two classes are advisories, reported and never failing (``ADVISORY_CLASSES``): ``enum-number``,
a sidecar path that is an enum field of our ``.proto`` (``enum_at``) whose types differ only by
``string`` vs ``number`` -- one enum written by name on one side and by number on the other (our
export writes a number for a value ``cortex.proto`` cannot name); the change names the numbers
the ``values`` surface recorded there. And ``not-in-baseline``, an added sidecar path the baseline
could not have recorded: one at or below a path its ``beyondRecord`` lists (known from real
stores, absent from the published record), or -- against lines imported from another corpus --
one carried only by steps of a type that corpus never held (``Baseline.step_types``; the sidecars
are read again for this, only when they hold such steps and an added path lies below
``steps.[]``), or first contact: any other path added in the stores fingerprinted here against
lines imported from another corpus (that corpus did not hold it: no evidence the format changed;
record your own baseline to judge it), and a key only the daemon writes against a baseline whose
sidecars were all reconstructed offline. Against a baseline recorded from your own stores an added
path is ``added``. A third, ``transient``, is a ``layout`` change of a family whose presence is
the state of agy's open databases rather than format (``layout.TRANSIENT_FAMILIES``: a ``-wal``
is there while agy holds its ``.db`` open, gone once SQLite checkpoints it). A surface whose every
change is one of these (or ``not-observed``) is an advisory DRIFT.

The fingerprints observed, from a corpus or read from a baseline, and which sidecar paths our
``.proto`` decodes: ``observed``; the classes, the changes and the results that carry them, and
the line diffs that classify them: ``changes``; the comparison of each surface with the baseline
and the advisory classes it settles: ``comparison``.
"""

from audit.checks.drift.changes import (
    ADVISORY_CLASSES,
    CLASSES,
    DRIFT,
    FAIL_ON,
    NEW,
    NOT_COMPARABLE,
    UNCHANGED,
    Change,
    Comparison,
    SurfaceResult,
    diff_lines,
    diff_values,
    split_line,
)
from audit.checks.drift.comparison import compare
from audit.checks.drift.observed import DIGEST_ONLY, Observed, enum_at, fingerprints_to_compare, native_observable

__all__ = [
    "ADVISORY_CLASSES",
    "CLASSES",
    "DIGEST_ONLY",
    "DRIFT",
    "FAIL_ON",
    "NEW",
    "NOT_COMPARABLE",
    "UNCHANGED",
    "Change",
    "Comparison",
    "Observed",
    "SurfaceResult",
    "compare",
    "diff_lines",
    "diff_values",
    "enum_at",
    "fingerprints_to_compare",
    "native_observable",
    "split_line",
]
