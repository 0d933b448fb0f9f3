"""One survey's reading of its inputs, as the surfaces' ``fingerprint`` functions share it: each
family of files read once, on demand, for every surface that needs it (``Reading.shared``), with
one running progress count, and the enum values met on the way gathered for the ``values`` surface."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from audit.checks.fingerprint.inputs import Inputs
from audit.checks.fingerprint.model import Survey
from audit.checks.values import SURFACE as VALUES
from audit.checks.values import Unrecorded, Values
from audit.progress import Callback

if TYPE_CHECKING:
    from audit.checks.fingerprint.reads import Reads

BLOBS = "blobs"
"""In ``Surface.reads``: the fields of each ``.db`` blob are walked (the ``wire`` surface). And
``VALUES`` (``audit.checks.values.SURFACE``): the enum values of what is read are gathered into
``Reading.values``."""

T = TypeVar("T")


class Reading:
    """What a survey reads for the surfaces wanted: *needs* is the union of their ``reads``."""

    def __init__(
        self, inputs: Inputs, result: Survey, needs: frozenset[str], read: Reads | None, progress: Callback | None
    ) -> None:
        self.inputs, self.result, self.needs, self.read = inputs, result, needs, read
        self.values: Values = Values() if VALUES in needs else Unrecorded()
        self._progress = progress
        self._done = 0
        self._total = sum(len(inputs.files(family)) for family in needs)
        self._shared: dict[Callable[[Reading], Any], Any] = {}

    def each(self, paths: Iterable[Path]) -> Iterator[Path]:
        """*paths*, each announced to the progress callback before it is read (one running count
        over every family read)."""
        for path in paths:
            if self._progress is not None:
                self._progress(self._done, self._total, str(path))
            self._done += 1
            yield path

    def files(self, family: str) -> Iterator[Path]:
        """The files of *family* (``Inputs.files``), counted by ``each``."""
        return self.each(self.inputs.files(family))

    def shared(self, read: Callable[[Reading], T]) -> T:
        """``read(self)``, called once for every surface that asks: what one pass over a family of
        files gives several surfaces (the databases' schemas and wire fields, the transcript streams'
        shape and conventions)."""
        if read not in self._shared:
            self._shared[read] = read(self)
        return self._shared[read]  # type: ignore[no-any-return]  # stored by the same read, so a T
