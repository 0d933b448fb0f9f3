"""What a sweep (or ci) has already read of a survey's inputs, handed to ``fingerprint_paths`` so that it
does not read them again (``Reads``)."""

from __future__ import annotations

import os
from pathlib import Path

from audit.checks.conventions import Conventions
from audit.checks.fingerprint.blobs import wire_observations
from audit.checks.fingerprint.databases import Schemas, database_values, problems
from audit.checks.fingerprint.inputs import Inputs
from audit.checks.fingerprint.model import Counts
from audit.checks.fingerprint.transcript import Streams, stream_shape
from audit.checks.shape import SidecarShape, TranscriptShape
from audit.checks.values import Unrecorded, Values
from audit.store.database import NativeConversation
from audit.store.trajectory import BlobFields, NativeTrajectory


class Reads:
    """Inputs of a ``fingerprint_paths`` observed elsewhere, which the survey then does not read again: the
    ``sqlite`` and ``wire`` observations of conversation databases (a sweep reads each ``.db``
    copy it writes), the ``transcript`` shape of brain directories and the ``sidecar`` shape of
    sidecars (read while a sweep's other checks read them). Only the distinct wire triples and
    the merged shapes are kept, so memory does not grow with the number of inputs. Everything
    added must be among the survey's inputs (sidecars that are not are read again, all of them)."""

    def __init__(self, *, values: bool = True) -> None:
        self.schemas = Schemas()
        self.wire: set[tuple[str, str, str]] = set()
        self.problems: dict[str, list[str]] = {}  # absolute path -> its problems, for every database added
        self.transcripts = TranscriptShape()
        self.conventions = Conventions()
        self.streams: dict[tuple[str, ...], tuple[list[str], list[str]]] = {}  # stream files -> (problems, skipped)
        self.sidecars = SidecarShape()
        self.sidecar_counts = Counts()
        self.sidecar_paths: set[str] = set()  # absolute paths of the sidecars added
        kind = Values if values else Unrecorded  # the values surface is computed from them, or not
        self.sidecar_values: Values = kind()
        self.database_values: Values = kind()
        self.transcript_values: Values = kind()

    def add_sidecar(self, path: Path, document: object, *, values: bool = True) -> None:
        """Observe the sidecar at *path*, parsed by ``strictjson.loads`` (``sidecar.read``); its enum
        values too unless they were taken from the reconstruction it renders (``add(...,
        rendered=True)``)."""
        self.sidecar_paths.add(os.path.abspath(path))
        unwrapped = self.sidecars.add_parsed(document)
        self.sidecar_counts.add_trajectory(unwrapped)
        if values:
            self.sidecar_values.add_sidecar(unwrapped)

    def add_brain(self, brain: Path, product: str | None = None) -> None:
        """Observe the transcript streams of the brain directory *brain* of *product* (as ``fingerprint_paths``
        finds them)."""
        inputs = Inputs()
        inputs.add_brain(brain, product)
        for tier, paths, _ in inputs.streams:
            found: list[str] = []
            skipped: list[str] = []
            streams = Streams(self.transcripts, self.conventions)
            stream_shape(streams, self.transcript_values, tier, paths, found, skipped, product)
            self.streams[tuple(map(str, paths))] = (found, skipped)

    def add(
        self,
        conv: NativeConversation,
        recorded: BlobFields | None = None,
        native: NativeTrajectory | None = None,
        *,
        rendered: bool = False,
        product: str | None = None,
    ) -> None:
        """Observe the conversation database *conv* (of *product*); *recorded*, what decoding it
        recorded of its blobs, spares parsing them again (``wire_observations``), and *native*, its
        reconstruction, decoding it again for its enum values. *rendered*: a sidecar added here is
        *native* rendered as it is (a native sweep's), so its enum values are taken in the same
        walk (and not again by ``add_sidecar(..., values=False)``)."""
        self.problems[os.path.abspath(conv.path)] = problems(conv)
        if conv.access:
            self.schemas.add(conv)
            self.wire.update(wire_observations(conv, recorded))
            database_values(self.database_values, conv, native, self.sidecar_values if rendered else None, product)
