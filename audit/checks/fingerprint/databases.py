"""The surfaces of conversation databases, read in one pass (``read_databases``).

* ``sqlite`` -- the conversation-database schema. The digest is the published schema
  fingerprint (sha256 over each non-null ``sqlite_master.sql`` in (type, name) order, each plus
  ``\\n``, then ``user_version`` plus ``\\n``); the lines name every table, column (declared
  type, NOT NULL, default, primary-key position), index/view/trigger and ``user_version``, so a
  diff says what changed. Databases that disagree make one union (the digest is then that of the
  lines, and ``Fingerprint.note`` says so).
* ``wire`` -- the protobuf shape of every blob column (``audit.checks.fingerprint.blobs``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from audit.checks.fingerprint.blobs import wire_fingerprint, wire_observations
from audit.checks.fingerprint.inputs import DATABASES
from audit.checks.fingerprint.model import INPUT_KINDS, KEPT, Fingerprint, Surface
from audit.checks.fingerprint.reading import BLOBS, Reading
from audit.checks.values import SURFACE as VALUES
from audit.checks.values import Values, add_trajectory
from audit.store.database import NativeConversation, SchemaObject, read_database, schema_fingerprint
from audit.store.trajectory import NativeTrajectory, reconstruct


def schema_lines(schema: list[SchemaObject], user_version: int | None) -> list[str]:
    """Canonical lines of one database schema (see the module docstring)."""
    lines = [f"user_version\t{user_version}"]
    for obj in schema:
        if obj.type == "table":
            lines.append(f"table:{obj.name}\ttable")
            for _cid, name, declared, notnull, default, pk in obj.columns:
                value = declared or "(no type)"
                value += " not-null" if notnull else ""
                value += f" default={default}" if default is not None else ""
                value += f" pk={pk}" if pk else ""
                lines.append(f"table:{obj.name}.{name}\t{value}")
        elif obj.sql is not None:  # indexes, views, triggers (autoindexes have no SQL)
            lines.append(f"{obj.type}:{obj.name}\t{' '.join(obj.sql.split())}")
    return lines


class Schemas:
    """The schemas of the databases read, as the ``sqlite`` surface records them."""

    def __init__(self) -> None:
        self.values: dict[str, set[str]] = {}
        self.digests: set[str] = set()

    def add(self, conv: NativeConversation) -> None:
        self.digests.add(schema_fingerprint(conv.schema, conv.user_version))
        for line in schema_lines(conv.schema, conv.user_version):
            path, value = line.split("\t", 1)
            self.values.setdefault(path, set()).add(value)

    def fingerprint(self) -> Fingerprint | None:
        if not self.digests:
            return None
        lines = [f"{path}\t{'|'.join(sorted(v))}" for path, v in self.values.items()]
        if len(self.digests) == 1:
            lines.sort()
            return Fingerprint("sqlite", tuple(lines), next(iter(self.digests)))
        return Fingerprint.of("sqlite", lines, note=f"{len(self.digests)} different schemas; digest of the union of lines")


def problems(conv: NativeConversation) -> list[str]:
    """What a survey reports of *conv*: every finding when it could not be read, else all but
    missing tables (the sqlite surface shows those)."""
    if not conv.access:
        return [f.message for f in conv.findings]
    return [f.message for f in conv.findings if f.code != "missing-table"]


def database_values(
    values: Values,
    conv: NativeConversation,
    native: NativeTrajectory | None = None,
    sidecar: Values | None = None,
    product: str | None = None,
) -> None:
    """The step types and statuses of *conv*'s rows (of *product*) and the enum values of its blobs
    (from *native*, its reconstruction, or from decoding it now), and those of its rendering into
    *sidecar*."""
    values.add_rows(conv.tables.get("steps", ()), product)
    add_trajectory((native or reconstruct(conv)).trajectory, wire=values, sidecar=sidecar)


@dataclass
class Databases:
    """What the conversation databases of a survey held: their schemas and, when the blobs were
    walked (``BLOBS``), their wire fields."""

    schemas: Schemas
    wire: Fingerprint | None


def read_databases(reading: Reading) -> Databases:
    """Read each database once (those the survey was given already read, ``Reads``, are taken
    from it): its schema, its wire fields when a surface wanted needs them (``BLOBS``), its step
    types, statuses and enum values when the values are gathered (into ``reading.values``)."""
    read = reading.read
    schemas = read.schemas if read is not None else Schemas()
    walk = BLOBS in reading.needs
    observations = _databases(reading, schemas, walk)
    if walk:
        wire = wire_fingerprint(observations)
    else:
        wire = None
        for _ in observations:  # read every .db for its schema only
            pass
    return Databases(schemas, wire if schemas.digests else None)


def _databases(reading: Reading, schemas: Schemas, walk: bool) -> Iterator[tuple[str, str, str]]:
    """Read each database once: its schema into *schemas*, its step types and statuses into the
    reading's values (per product, as the inputs give each path's), its wire observations yielded;
    those the survey was given already read are not read again (*schemas*, the values and the
    yielded triples then include theirs)."""
    read, result, values = reading.read, reading.result, reading.values
    if read is not None:
        values.merge(read.database_values)
        if walk:
            yield from read.wire
    for path in reading.files(DATABASES):
        result.counts.databases += 1
        if read is not None and (known := read.problems.get(os.path.abspath(path))) is not None:
            result.problems.extend(known)
            continue
        conv = read_database(path)
        result.problems.extend(problems(conv))
        if not conv.access:
            continue
        schemas.add(conv)
        if VALUES in reading.needs:
            database_values(values, conv, product=reading.inputs.products.get(os.path.abspath(path)))
        if walk:
            yield from wire_observations(conv)


SQLITE = Surface(
    "sqlite",
    describes="the conversation database schema: DDL and user_version",
    missing="no readable conversation .db",
    found_in=INPUT_KINDS,
    reads=frozenset({DATABASES}),
    fingerprint=lambda reading: reading.shared(read_databases).schemas.fingerprint(),
    redact=KEPT,
)
WIRE = Surface(
    "wire",
    describes="the protobuf shape of the database's blob columns",
    missing="no readable conversation .db",
    found_in=INPUT_KINDS,
    reads=frozenset({DATABASES, BLOBS}),
    fingerprint=lambda reading: reading.shared(read_databases).wire,
    redact=KEPT,
    sessions=True,
)
