"""Where sessions are: store roots under ``~/.gemini/antigravity*`` and the artifacts of each session.

Discovery only lists and stats files; it never opens a store file for writing and never follows a
symbolic link inside a store (links are reported as foreign entries). The layout is the one real
installs have (docs/store-format.md#roots, #session-files): besides the store directories a root holds per-install
files (``antigravity_state.pbtxt``, ``agyhub_summaries_proto.pb``, ``history.jsonl``,
``conversation_summaries.db``, ``annotations/<uuid>.pbtxt``, the CLI's ``cache/``, ``log/cli-*.log`` and ``cli.log``, a symbolic
link to the current log on Linux and macOS), listed as ``InstallFile``s and never part of a
session; ``brain_backup/<uuid>/`` holds copies of sessions, listed as ``Backup``s, never as
sessions (so never swept twice and never a duplicate id).

Store roots and their products (``roots``), what a scan finds and the session an id names
(``sessions``), the scan of one root (``scanning``) and the file families whose presence is format
(``families``). The names other modules use are re-exported here.
"""

from audit.store.layout.families import LAYOUT_FAMILIES, TRANSIENT_FAMILIES, layout_forms
from audit.store.layout.roots import (
    NON_STORES,
    ROOT_PRODUCTS,
    Root,
    is_store,
    product_of,
    refuse_inside_store,
    require_roots,
    resolve_roots,
)
from audit.store.layout.scanning import list_dir, list_install_files, scan, scan_root
from audit.store.layout.sessions import (
    BACKUP_DIR,
    INSTALL_FILES,
    SIDECAR_SUFFIX,
    Foreign,
    InstallFile,
    Located,
    RootScan,
    Session,
    find_session,
    locate_session,
    newest_first,
)

__all__ = [
    "BACKUP_DIR",
    "INSTALL_FILES",
    "LAYOUT_FAMILIES",
    "NON_STORES",
    "ROOT_PRODUCTS",
    "SIDECAR_SUFFIX",
    "TRANSIENT_FAMILIES",
    "Foreign",
    "InstallFile",
    "Located",
    "Root",
    "RootScan",
    "Session",
    "find_session",
    "is_store",
    "layout_forms",
    "list_dir",
    "list_install_files",
    "locate_session",
    "newest_first",
    "product_of",
    "refuse_inside_store",
    "require_roots",
    "resolve_roots",
    "scan",
    "scan_root",
]
