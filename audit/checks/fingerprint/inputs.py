"""The inputs of a fingerprint survey: which files a sweep corpus, a store root, a home directory,
a plain directory or files given alone hold, by family (``Inputs.files``), found before any is read.

A sweep corpus: ``manifest.json``, ``corpus/<product>/<id>.trajectory.json``,
``native/<product>/<id>.db``, ``native/<product>/brain/<id>/...``,
``native/<product>/install/<root name>/...`` and the directories of ``native/<product>/`` a surface
reads (``Surface.swept``: ``rpc/``); a store root: ``conversations/``, ``brain/``, its per-install
files; a home directory: its ``.gemini/antigravity*`` roots; a plain directory: its
``*.trajectory.json``, ``*.db``, ``*.jsonl`` and ``*.md.metadata.json`` files; files given alone:
``history.jsonl``, ``conversation_summaries.db`` and ``*.md.metadata.json`` by name, else ``.db``,
``.jsonl``, else a sidecar. Symbolic links are reported and never followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.checks.fingerprint.model import Survey
from audit.errors import InputError
from audit.safeio import exists, is_dir, read_json
from audit.store import install, layout
from audit.store import transcript as tr
from audit.store.ids import canonical_id
from audit.store.layout import SIDECAR_SUFFIX
from audit.store.selection import Selection

SIDECARS, DATABASES, TRANSCRIPTS, ARTIFACTS = "sidecars", "databases", "transcripts", "artifacts"
"""Families of the files of sessions: trajectory sidecars, conversation databases, every file of
every transcript stream, brain artifact metadata."""
SUMMARIES, HISTORY, CACHE = "summaries", "history", "cache"
"""Families of the per-install files (``install.SWEPT``'s kinds)."""
TRANSCRIPT_NAMES = ("transcript.jsonl", "transcript_full.jsonl", "overview.txt")
ARTIFACT_SUFFIX = ".md.metadata.json"
_FORMS = frozenset({"file", "file|none"})


@dataclass
class Inputs:
    sidecars: list[Path] = field(default_factory=list)
    databases: list[Path] = field(default_factory=list)
    transcripts: list[Path] = field(default_factory=list)  # every file of every stream
    streams: list[tuple[str | None, tuple[Path, ...], str | None]] = field(default_factory=list)  # (tier, parts, product)
    artifacts: list[Path] = field(default_factory=list)  # brain <name>.md.metadata.json files
    installs: list[tuple[str | None, str, Path]] = field(default_factory=list)  # (root name, path in the root, file)
    roots: set[str] = field(default_factory=set)  # names of the store roots (given, discovered or swept)
    layouts: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # root name -> family -> forms
    swept: dict[str, list[Path]] = field(default_factory=dict)  # a directory of native/<product>/ -> its files
    seen: set[str] = field(default_factory=set)
    products: dict[str, str] = field(default_factory=dict)  # absolute path of a database -> its product, when known

    def files(self, family: str) -> list[Path]:
        """The files of *family*: ``SIDECARS``, ``DATABASES``, ``TRANSCRIPTS``, ``ARTIFACTS``, a
        per-install kind (``SUMMARIES``, ``HISTORY``, ``CACHE``) or a swept directory's name
        (``Surface.swept``); none for anything else (what is not a family of files)."""
        if family in (SIDECARS, DATABASES, TRANSCRIPTS, ARTIFACTS):
            return list(getattr(self, family))
        if family in install.SWEPT:
            return [path for _, _, path in self.installed(family)]
        return list(self.swept.get(family, ()))

    def installed(self, kind: str) -> list[tuple[str | None, str, Path]]:
        """(root name, path in the root, file) of the per-install files of *kind*."""
        return [item for item in self.installs if install.kind_of(item[1]) == kind]

    def add(self, kind: str, path: Path, product: str | None = None) -> None:
        """A file of *kind* (``sidecars``, ``databases``, ``artifacts``), of the product (``cli``,
        ``ide``, ``acp``) *product* when known."""
        key = os.path.abspath(path)  # no syscall per file; symbolic links are never collected
        if key not in self.seen:
            self.seen.add(key)
            getattr(self, kind).append(path)
            if product is not None:
                self.products[key] = product

    def add_swept(self, directory: str, path: Path) -> None:
        """A file of the swept directory *directory* of ``native/<product>/`` (``Surface.swept``)."""
        key = os.path.abspath(path)
        if key not in self.seen:
            self.seen.add(key)
            self.swept.setdefault(directory, []).append(path)

    def add_install(self, root: str | None, rel: str, path: Path) -> None:
        """A per-install file (``install.SWEPT``) at *rel* in the root named *root* (None: a file
        given alone, which belongs to no known root)."""
        key = os.path.abspath(path)
        if key not in self.seen:
            self.seen.add(key)
            self.installs.append((root, rel, path))

    def add_layout(self, root: str, forms: dict[str, str]) -> None:
        """The file families of a root's sessions (``layout.layout_forms``); a root name met twice
        (two homes) holds the forms of both."""
        held = self.layouts.setdefault(root, {})
        for family, form in forms.items():
            held.setdefault(family, set()).update(form.split("|"))

    def add_stream(self, tier: str | None, paths: tuple[Path, ...], product: str | None = None) -> None:
        fresh = tuple(p for p in paths if os.path.abspath(p) not in self.seen)
        if fresh:
            self.seen.update(os.path.abspath(p) for p in fresh)
            self.transcripts.extend(fresh)
            self.streams.append((tier, fresh, product))

    def add_brain(self, brain: Path, product: str | None = None) -> None:
        """Every tier of one brain directory (of *product*, when known), one stream each (two when
        flat and chunks differ)."""
        for tier in tr.locate(brain).tiers:
            state = tier.agreement()
            if state in ("differ", "unreadable"):
                assert tier.flat is not None  # agreement() is None without a flat file
                self.add_stream(tier.name, (tier.flat,), product)
                self.add_stream(tier.name, tier.chunks, product)
            else:
                self.add_stream(tier.name, tier.stream, product)


def _entries(directory: Path, result: Survey) -> list[os.DirEntry[str]]:
    """``layout.list_dir``, with an unreadable directory recorded as a problem instead."""
    try:
        return layout.list_dir(directory)
    except InputError as exc:
        result.problems.append(exc.message)
        return []


def _regular(entry: os.DirEntry[str], result: Survey) -> bool:
    """A regular file (a symbolic link is reported and skipped)."""
    if entry.is_symlink():
        result.skipped.append(f"{entry.path}: symbolic link (not followed)")
        return False
    return entry.is_file(follow_symlinks=False)


def _uuid_file(entry: os.DirEntry[str], suffix: str, result: Survey) -> bool:
    if not entry.name.endswith(suffix) or not _regular(entry, result):
        return False
    if canonical_id(entry.name[: -len(suffix)]) is None:
        result.skipped.append(f"{entry.path}: name is not <uuid>{suffix}")
        return False
    return True


def _brain(directory: Path, inputs: Inputs, result: Survey, product: str | None) -> None:
    """The transcript tiers of each ``<directory>/<uuid>/.system_generated/logs/`` (of *product*)."""
    for entry in _entries(directory, result):
        if entry.is_symlink():
            result.skipped.append(f"{entry.path}: symbolic link (not followed)")
        elif canonical_id(entry.name) is None or not entry.is_dir(follow_symlinks=False):
            result.skipped.append(f"{entry.path}: not a brain/<uuid>/ directory")
        else:
            logs = Path(entry.path, ".system_generated", "logs")
            for log in _entries(logs, result):  # symbolic links among them are reported, never read
                if log.name in TRANSCRIPT_NAMES:
                    _regular(log, result)
            inputs.add_brain(Path(entry.path), product)
            _artifacts(Path(entry.path), inputs, result)


def _sweep(path: Path, inputs: Inputs, result: Survey, swept: frozenset[str]) -> None:
    manifest = read_json(path / "manifest.json")
    result.manifests.append(path / "manifest.json")
    result.complete = result.complete and manifest.get("complete") is True
    uncovered = manifest.get("notCovered") if isinstance(manifest.get("notCovered"), list) else []
    taken = manifest.get("sessions") if isinstance(manifest.get("sessions"), list) else []
    result.uncovered += len(uncovered)
    result.readable = result.readable and (  # incomplete only by the sessions only the daemon reads
        manifest.get("complete") is True
        or (
            manifest.get("finished") is not None
            and not manifest.get("failures")
            and len(taken) + len(uncovered) == manifest.get("selected")
        )
    )
    chosen = manifest.get("selection")
    result.selection = result.selection or Selection.from_json(chosen)
    result.excluded += len(chosen.get("excluded") or ()) if isinstance(chosen, dict) else 0
    result.selected += manifest["selected"] if isinstance(manifest.get("selected"), int) else 0
    version = manifest.get("installedAgyVersion")
    result.agy_version = version if isinstance(version, str) and result.agy_version in (None, version) else None
    sessions = manifest.get("sessions")
    for session in sessions if isinstance(sessions, list) else ():  # sessions with a sidecar (not brain-only ones)
        files = session.get("files") if isinstance(session, dict) else None
        if (
            isinstance(session.get("source"), str)
            and isinstance(files, dict)
            and any(str(k).startswith("corpus/") for k in files)
        ):
            result.sources[session["source"]] += 1
    corpus = path / "corpus"
    for entry in _entries(corpus, result):
        if entry.is_dir(follow_symlinks=False):  # corpus/<product>/
            for item in _entries(Path(entry.path), result):
                if _uuid_file(item, SIDECAR_SUFFIX, result):
                    inputs.add("sidecars", Path(item.path))
        elif _uuid_file(entry, SIDECAR_SUFFIX, result):  # agy-reader's flat corpus/
            inputs.add("sidecars", Path(entry.path))
    _manifest_roots(manifest, inputs)
    for entry in _entries(path / "native", result):  # native/<product>/
        if not entry.is_dir(follow_symlinks=False):
            continue
        for item in _entries(Path(entry.path), result):
            if item.name == "brain" and item.is_dir(follow_symlinks=False):
                _brain(Path(item.path), inputs, result, entry.name)
            elif item.name == install.INSTALL_DIR and item.is_dir(follow_symlinks=False):
                _corpus_installs(Path(item.path), inputs, result)
            elif item.name in swept and item.is_dir(follow_symlinks=False):
                for found in _entries(Path(item.path), result):
                    if _regular(found, result):
                        inputs.add_swept(item.name, Path(found.path))
            elif _uuid_file(item, ".db", result):
                inputs.add("databases", Path(item.path), entry.name)


def _store(root: layout.Root, inputs: Inputs, result: Survey) -> None:
    scan = layout.scan_root(root)
    result.skipped.extend(f"{f.path}: {f.reason}" for f in scan.foreign)
    _store_installs(scan, inputs)
    inputs.add_layout(install.root_name(scan.root.path), layout.layout_forms(scan.sessions))
    for session in scan.sessions:
        if session.sidecar is not None:
            inputs.add("sidecars", session.sidecar)
        if session.db is not None:
            inputs.add("databases", session.db, root.product)
        elif session.legacy_pb is not None:
            result.unread += 1
        if session.brain is not None:
            inputs.add_brain(session.brain, root.product)


def _plain_dir(path: Path, inputs: Inputs, result: Survey) -> None:
    for entry in _entries(path, result):
        if _install_name(entry.name) is not None:
            if _regular(entry, result):
                _file(Path(entry.path), inputs)
        elif entry.name.endswith(SIDECAR_SUFFIX) and _regular(entry, result):
            inputs.add("sidecars", Path(entry.path))
        elif entry.name.endswith(".db") and _regular(entry, result):
            inputs.add("databases", Path(entry.path))
        elif (entry.name.endswith(".jsonl") or entry.name == tr.FLAT_NAMES["overview"]) and _regular(entry, result):
            inputs.add_stream(tr.tier_of(entry.path), (Path(entry.path),))


def _file(path: Path, inputs: Inputs) -> None:
    kind = _install_name(path.name)
    if kind == "artifacts":
        inputs.add("artifacts", path)
    elif kind is not None:
        inputs.add_install(None, path.name, path)
    elif path.name.endswith(".db"):
        inputs.add("databases", path)
    elif path.name.endswith(".jsonl") or path.name == tr.FLAT_NAMES["overview"]:
        inputs.add_stream(tr.tier_of(path), (path,))
    else:
        inputs.add("sidecars", path)


def collect(paths: Iterable[str | os.PathLike[str]], swept: frozenset[str] = frozenset()) -> tuple[Inputs, Survey]:
    """The inputs *paths* hold (the files of the directories *swept* of a corpus's
    ``native/<product>/`` too) and the survey that will say what they are; a path that does not
    exist, or is neither a file nor a directory, is an ``InputError``."""
    inputs = Inputs()
    kinds: set[str] = set()
    result = Survey(kind="files", complete=True, agy_version=None, readable=True)
    for raw in paths:
        path = Path(raw)
        try:
            st = os.stat(path)
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or 'cannot read'}") from None
        if stat.S_ISREG(st.st_mode):
            kinds.add("files")
            _file(path, inputs)
        elif not stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: not a file or directory")
        elif exists(path / "manifest.json"):
            kinds.add("sweep")
            _sweep(path, inputs, result, swept)
        elif layout.is_store(path):
            kinds.add("store")
            _store(layout.Root(path.absolute(), layout.product_of(path), explicit=True), inputs, result)
        elif is_dir(path / ".gemini"):
            kinds.add("store")
            for root in layout.resolve_roots(home=path, env={}):
                _store(root, inputs, result)
        else:
            kinds.add("files")
            _plain_dir(path, inputs, result)
    result.complete = result.complete and kinds == {"sweep"}
    result.readable = result.readable and kinds == {"sweep"}
    result.kind = kinds.pop() if len(kinds) == 1 else "files"
    return inputs, result


def _install_name(name: str) -> str | None:
    """The surface a file given by itself (or in a plain directory) belongs to, by its name."""
    if name in (install.HISTORY, install.SUMMARIES):
        return install.kind_of(name)
    if name.endswith(ARTIFACT_SUFFIX):
        return "artifacts"
    return None


def _artifacts(brain: Path, inputs: Inputs, result: Survey) -> None:
    """The ``<name>.md.metadata.json`` files at the top of the (copied) brain directory *brain*."""
    for entry in _entries(brain, result):
        if entry.name.endswith(ARTIFACT_SUFFIX) and _regular(entry, result):
            inputs.add("artifacts", Path(entry.path))


def _store_installs(scan: layout.RootScan, inputs: Inputs) -> None:
    """The root's name, its per-install files (``install.SWEPT``) and its sessions' artifact metadata."""
    name = install.root_name(scan.root.path)
    inputs.roots.add(name)
    for item in scan.install_files:
        if item.kind in install.SWEPT:
            inputs.add_install(name, item.path.relative_to(scan.root.path).as_posix(), item.path)
    for session in scan.sessions:
        for path in session.brain_files.get("artifact_metadata", ()):
            inputs.add("artifacts", path)


def _manifest_roots(manifest: dict[str, Any], inputs: Inputs) -> None:
    """The names of the roots a sweep read (``roots[].name``; the last segment of ``path`` in a
    manifest written before names were recorded)."""
    roots = manifest.get("roots")
    for root in roots if isinstance(roots, list) else ():
        if not isinstance(root, dict):
            continue
        name, path = root.get("name"), root.get("path")
        if isinstance(name, str) and name:
            inputs.roots.add(name)
        elif isinstance(path, str) and path:
            name = install.root_name(path)
            inputs.roots.add(name)
        forms = root.get("layout")
        if isinstance(name, str) and name and isinstance(forms, dict):
            inputs.add_layout(name, {f: v for f, v in forms.items() if f in layout.LAYOUT_FAMILIES and v in _FORMS})


def _corpus_installs(directory: Path, inputs: Inputs, result: Survey) -> None:
    """``native/<product>/install/<root name>/``: the per-install files a sweep copied, by root."""
    for entry in _entries(directory, result):
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
            result.skipped.append(f"{entry.path}: not an install/<root>/ directory")
            continue
        inputs.roots.add(entry.name)
        for item in _entries(Path(entry.path), result):
            if item.name == install.CACHE and not item.is_symlink() and item.is_dir(follow_symlinks=False):
                for cached in _entries(Path(item.path), result):
                    if _regular(cached, result):
                        inputs.add_install(entry.name, f"{install.CACHE}/{cached.name}", Path(cached.path))
            elif install.kind_of(item.name) is not None and _regular(item, result):
                inputs.add_install(entry.name, item.name, Path(item.path))
            else:
                result.skipped.append(f"{item.path}: not a per-install file agy-audit sweeps")
