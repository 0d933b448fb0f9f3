"""Consumer profiles as read: their entries, scope and preferences, loaded from a file or among the
bundled ones and validated against their schema.

A profile (``consumers/<name>.json``, schema ``consumer-profile``) lists the entries one tool
reads -- fingerprint line paths per surface (``sidecar``, ``sqlite``, ``wire``, ``transcript``, ...),
file patterns relative to a store root (``layout``: matched against the ``layout`` fingerprint's
file families of every root) or daemon answer fields (``rpc``: ``<Method>.<path>``, the ``rpc``
fingerprint's lines) -- each ``requires`` or ``optional``, with the values it ``accepts`` and a
citation of the tool's source. A ``*`` in a path matches any run of characters within one
dot-separated segment.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from audit.checks import schemas
from audit.errors import InputError, UsageError
from audit.findings import Level
from audit.resources import data_path
from audit.safeio import is_dir, read_json
from audit.store import layout

SCHEMA = "consumer-profile"
Mode = Literal["requires", "optional"]
"""How an entry reads its path: a consumer that ``requires`` it fails without it."""
REQUIRES: Final = "requires"
OPTIONAL: Final = "optional"
Other = Literal["breaks", "drops", "skips"]
"""What an entry with a value filter does with any other value: fails on it, drops its records
silently, or skips them by design."""
BREAKS_ON_OTHER: Final = "breaks"
DROPS_OTHER: Final = "drops"
SKIPS_OTHER: Final = "skips"


@dataclass(frozen=True)
class Entry:
    surface: str
    path: str
    mode: Mode
    cite: str
    why: str
    accepts: tuple[str, ...] | None = None
    observed: bool = True
    values: tuple[str, ...] | None = None  # the values it acts on (or range)
    range: tuple[int, int] | None = None  # lo <= v < hi
    other: Other | None = None  # what it does with any other value
    fallback: tuple[str, ...] = ()  # labels of the entries it reads instead when this path is gone everywhere
    only: tuple[str, ...] = ()  # the record types its filter is applied to (it takes no other type), or
    excepts: tuple[str, ...] = ()  # the record types its filter is not applied to (it takes them by type)

    @property
    def label(self) -> str:
        return f"{self.surface} {self.path or '(root)'}"

    @property
    def selects(self) -> str | None:
        """The values it acts on, in words (``type in {15}``, ``model in [1000, 5000)``), or None."""
        name = self.path.rsplit(".", 1)[-1] or self.path
        if self.values is not None:
            return f"{name} in {{{', '.join(self.values)}}}"
        if self.range is not None:
            return f"{name} in [{self.range[0]}, {self.range[1]})"
        return None

    @property
    def by_type(self) -> str | None:
        """The record types its filter is applied to, in words, when the profile names them (``only``,
        ``except``), else None."""
        if self.only:
            return f"of types {', '.join(self.only)} (the only types it takes)"
        return f"of types other than {', '.join(self.excepts)} (it takes those by type)" if self.excepts else None

    def filters(self, kind: str) -> bool:
        """Whether its filter is applied to the records of type *kind*."""
        return kind in self.only if self.only else kind not in self.excepts

    def takes(self, value: str) -> bool:
        """Whether *value* (as the values fingerprint records it) is one the entry acts on."""
        if self.values is not None:
            return value in self.values
        if self.range is not None:
            number = value.lstrip("-")
            return number.isdigit() and self.range[0] <= int(value) < self.range[1]
        return True


@dataclass(frozen=True)
class Scope:
    """The store roots a consumer reads (``scope``), and where its code says so."""

    roots: tuple[str, ...]
    cite: str
    why: str

    @property
    def products(self) -> frozenset[str]:
        """The products of its roots (``cli``, ``ide``, ``acp``): records are counted per product."""
        return frozenset(layout.ROOT_PRODUCTS[r] for r in self.roots)


@dataclass(frozen=True)
class Preference:
    """A file family a consumer reads a session from when the session has it (``family``), in
    place of another (``over``), read only for a session without it (``prefers``)."""

    family: str
    over: str
    cite: str
    why: str


@dataclass(frozen=True)
class Profile:
    name: str
    repository: str
    version: str
    describes: str
    entries: tuple[Entry, ...]
    path: Path | None = None
    bundled: bool = False
    scope: Scope | None = None
    prefers: tuple[Preference, ...] = ()


# ----------------------------------------------------------------------------- loading


def bundled_dir() -> Path:
    return data_path("consumers")


def from_document(doc: object, source: str) -> Profile:
    """A profile from its parsed JSON; ``InputError`` naming *source* and the first violation."""
    findings = [f for f in schemas.load(SCHEMA).check(doc) if f.level == Level.ERROR]
    if findings:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        raise InputError(f"{source}: not a consumer profile: {first.pointer or '/'}: {first.message}{more}")
    assert isinstance(doc, dict)
    entries = tuple(
        Entry(
            e["surface"],
            e["path"],
            e["mode"],
            e["cite"],
            e["why"],
            tuple(e["accepts"]) if "accepts" in e else None,
            e.get("observed", True),
            tuple(e["values"]) if "values" in e else None,
            (e["range"][0], e["range"][1]) if "range" in e else None,
            e.get("other"),
            tuple(e.get("fallback", ())),
            tuple(e.get("only", ())),
            tuple(e.get("except", ())),
        )
        for e in doc["entries"]
    )
    labels = {e.label for e in entries}
    for i, entry in enumerate(entries):
        for label in entry.fallback:
            if label not in labels or label == entry.label:
                raise InputError(
                    f"{source}: not a consumer profile: /entries/{i}/fallback: {label!r} names no other entry of the profile"
                )
    scope = doc.get("scope")
    return Profile(
        doc["name"],
        doc["repository"],
        doc["version"],
        doc["describes"],
        entries,
        scope=None if scope is None else Scope(tuple(scope["roots"]), scope["cite"], scope["why"]),
        prefers=tuple(Preference(p["family"], p["over"], p["cite"], p["why"]) for p in doc.get("prefers", ())),
    )


def load(path: str | os.PathLike[str], *, bundled: bool = False) -> Profile:
    profile = from_document(read_json(path), str(path))
    return Profile(**{**profile.__dict__, "path": Path(path), "bundled": bundled})


def bundled() -> list[Profile]:
    """The bundled profiles, by name."""
    directory = bundled_dir()
    found = [load(p, bundled=True) for p in sorted(directory.glob("*.json"))] if is_dir(directory) else []
    return sorted(found, key=lambda p: p.name)


def resolve(specs: Sequence[str] | None) -> list[Profile]:
    """Profiles by bundled name or file path (default: every bundled one); a name given twice is
    used once; two profiles with one name are a usage error."""
    if not specs:
        return bundled()
    known = {p.name: p for p in bundled()}
    chosen: dict[str, Profile] = {}
    for spec in specs:
        if spec in known:
            profile = known[spec]
        elif os.path.isfile(spec):
            profile = load(spec)
        else:
            names = ", ".join(known) or "none"
            raise UsageError(f"{spec}: no such consumer profile (a file, or one of the bundled: {names})")
        other = chosen.get(profile.name)
        if other is not None and other.path != profile.path:
            raise UsageError(f"{spec}: a second profile named {profile.name!r} (the first is {other.path})")
        chosen[profile.name] = profile
    return list(chosen.values())
