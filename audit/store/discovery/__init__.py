"""Where a store's daemon listens and which CSRF token it wants -- and whether it may have it.

``discover`` (``endpoints``, whose docstring tells the order it looks in and when a token may go
where) takes the hints that processes of this user show in their command lines, environments and
``/proc`` entries (``procfs``) and in log files (``logs``); ``watchers`` finds the running
``agy-reader --watch`` processes and the roots they cover. The names other modules use are
re-exported here; ``PROC_ROOT`` is not (patch ``procfs.PROC_ROOT``, where it is looked up).
"""

from audit.store.discovery.endpoints import (
    ENV_URL,
    LOG,
    NO_PROC,
    PINNED,
    PROCESS,
    Endpoint,
    Withheld,
    discover,
    token_from_env,
)
from audit.store.discovery.logs import log_files, port_from_log, port_from_logs, token_from_main_log
from audit.store.discovery.procfs import (
    ENV_TOKEN,
    FLAGS,
    hint_from_cmdline,
    hint_from_environ,
    listening_sockets,
    parse_argv,
    parse_environ,
    parse_flags,
    proc_available,
    process_hints,
    scan_processes,
)
from audit.store.discovery.watchers import Watcher, reader_watch_roots, reader_watchers, watcher_for

__all__ = [
    "ENV_TOKEN",
    "ENV_URL",
    "FLAGS",
    "LOG",
    "NO_PROC",
    "PINNED",
    "PROCESS",
    "Endpoint",
    "Watcher",
    "Withheld",
    "discover",
    "hint_from_cmdline",
    "hint_from_environ",
    "listening_sockets",
    "log_files",
    "parse_argv",
    "parse_environ",
    "parse_flags",
    "port_from_log",
    "port_from_logs",
    "proc_available",
    "process_hints",
    "reader_watch_roots",
    "reader_watchers",
    "scan_processes",
    "token_from_env",
    "token_from_main_log",
    "watcher_for",
]
