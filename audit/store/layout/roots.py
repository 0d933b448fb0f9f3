"""Store roots: which directories under ``~/.gemini`` are stores (or the roots given), and the
product each belongs to (``cli``, ``ide``, ``acp``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from audit.errors import InputError, NothingToCheck, UsageError
from audit.safeio import DIRECTORY, exists, is_dir, path_kind

ROOT_PRODUCTS = {
    "antigravity-cli": "cli",
    "antigravity": "ide",
    "antigravity-ide": "ide",
    "antigravity-acp": "acp",
}
NON_STORES = frozenset({"antigravity-backup", "antigravity-browser-profile"})
STORE_DIRS = ("conversations", "implicit", "brain")
ENV_ROOT = "ANTIGRAVITY_CLI_ROOT"


@dataclass(frozen=True)
class Root:
    path: Path
    product: str  # cli, ide, acp or unknown
    explicit: bool


def product_of(path: Path) -> str:
    """The product (``cli``, ``ide``, ``acp``) whose root *path* is, from its directory name, else
    from its marker files."""
    product = ROOT_PRODUCTS.get(path.name)
    if product is not None:
        return product
    if path_kind(path / "cli.log", follow_symlinks=False) is not None or exists(path / "jetski_state.pbtxt"):
        return "cli"
    if exists(path / "antigravity_state.pbtxt"):
        return "ide"
    return "unknown"


def is_store(path: Path) -> bool:
    return any(is_dir(path / name) for name in STORE_DIRS)


def resolve_roots(
    home: str | os.PathLike[str] | None = None,
    roots: Iterable[str | os.PathLike[str]] = (),
    env: Mapping[str, str] | None = None,
) -> list[Root]:
    """Explicit roots (``--root``, else ``$ANTIGRAVITY_CLI_ROOT``) or every discovered store.

    An explicit root that is not a directory is an error (exit 2); discovery never fails, it may
    find nothing.
    """
    env = os.environ if env is None else env
    explicit = [Path(r) for r in roots]
    if not explicit and env.get(ENV_ROOT):
        explicit = [Path(env[ENV_ROOT])]
    if explicit:
        resolved: list[Root] = []
        for path in explicit:
            kind = path_kind(path)
            if kind != DIRECTORY:
                what = "does not exist" if kind is None and not os.path.lexists(path) else "is not a directory"
                raise InputError(f"{path}: store root {what}")
            path = path.absolute()
            if any(r.path == path for r in resolved):
                continue
            resolved.append(Root(path, product_of(path), explicit=True))
        return resolved
    base = Path(home) if home is not None else Path(env.get("HOME") or Path.home())
    gemini = base / ".gemini"
    found = Roots(looked_in=gemini)
    try:
        names = sorted(entry.name for entry in os.scandir(gemini) if entry.name.startswith("antigravity"))
    except (FileNotFoundError, NotADirectoryError):
        return found
    except OSError as exc:  # unreadable, a name too long: not "no store", a directory we could not look in
        raise InputError(f"{gemini}: cannot list ({exc.strerror or exc}); no store could be discovered there") from None
    for name in names:
        path = (gemini / name).absolute()
        if name in NON_STORES or not is_dir(path) or not is_store(path):
            continue
        found.append(Root(path, product_of(path), explicit=False))
    return found


def refuse_inside_store(path: str | os.PathLike[str], roots: Iterable[Root], what: str) -> None:
    """``UsageError`` when the new directory *path* would be inside one of *roots*: a corpus or
    backup written there would be read back as part of the store by every later check."""
    target = Path(path).absolute()
    where = target.parent.resolve() / target.name
    for root in roots:
        if where.is_relative_to(root.path.resolve()):
            raise UsageError(f"{target}: inside the store root {root.path}; write the {what} elsewhere")


class Roots(list[Root]):
    """Discovered roots, and the directory discovery looked in (for "nothing found" messages)."""

    def __init__(self, roots: Iterable[Root] = (), *, looked_in: Path | None = None) -> None:
        super().__init__(roots)
        self.looked_in = looked_in


def require_roots(roots: list[Root]) -> list[Root]:
    if not roots:
        looked_in = getattr(roots, "looked_in", None)
        where = f"{looked_in}/antigravity*" if looked_in is not None else "~/.gemini/antigravity*"
        raise NothingToCheck(f"no Antigravity store found (looked for {where}; use --home or --root)")
    return roots
