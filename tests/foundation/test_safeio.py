import collections
import dataclasses
import datetime
import enum
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit import safeio, strictjson
from audit.errors import InputError
from audit.strictjson import JSONError, RawFloat

# ----------------------------------------------------------------------------- strict JSON


@pytest.mark.parametrize(
    ("data", "reason", "pointer"),
    [
        (b'{"a": 1, "a": 2}', "duplicate key 'a'", ""),
        (b'{"x": {"y": [{"k": 1}, {"k": 1, "k": 2}]}}', "duplicate key 'k'", "/x/y/1"),
        (b'{"a/b": {"c~d": {"z": 1, "z": 1}}}', "duplicate key 'z'", "/a~1b/c~0d"),
        (b'{"a": NaN}', "NaN is not valid JSON", None),
        (b'{"a": [Infinity]}', "Infinity is not valid JSON", None),
        (b'{"a": -Infinity}', "-Infinity is not valid JSON", None),
        (b"[1, 2]", "top level is array, not an object", ""),
        (b'"text"', "top level is string, not an object", ""),
        (b"null", "top level is null, not an object", ""),
        (b'{"ok": "x", "bad": "caf\xe9"}', "invalid UTF-8 at byte 23", "/bad"),
        (b'{"k\xff": 1}', "invalid UTF-8 at byte 3", "/k\udcff"),
        (b'\xef\xbb\xbf{"a": 1}', "starts with a byte-order mark", None),
        (b'{"a": 1', "invalid JSON at line 1 column 8: Expecting ',' delimiter", None),
    ],
)
def test_rejected_inputs_name_file_reason_and_pointer(data, reason, pointer):
    with pytest.raises(JSONError) as info:
        strictjson.loads(data, source="side.json")
    err = info.value
    assert err.source == "side.json"
    assert err.reason == reason
    assert err.pointer == pointer
    assert str(err).startswith("side.json: " + reason)
    assert err.exit_code == 2


def test_non_object_top_level_allowed_on_request():
    assert strictjson.loads(b"[1, 2]", require_object=False) == [1, 2]


@pytest.mark.parametrize("exact", [False, True])
def test_depth_is_bounded_without_recursion_error(exact):
    depth = strictjson.MAX_DEPTH + 1 if exact else 100_000
    data = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    with pytest.raises(JSONError) as info:
        strictjson.loads(data, source="deep.json", exact=exact)
    assert "nesting deeper than" in info.value.reason


def test_depth_at_limit_is_accepted():
    depth = strictjson.MAX_DEPTH - 1
    data = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    assert isinstance(strictjson.loads(data, exact=True), dict)


def test_exact_numbers_round_trip_texts():
    text = '{"big":123456789012345678901234567890123,"neg0":-0,"f":1.50,"e":1E+5,"inf":1e400,"small":-2.5e-7,"i":-42}'
    value = strictjson.loads(text.encode(), exact=True)
    assert value["big"] == 123456789012345678901234567890123
    assert isinstance(value["f"], RawFloat) and value["f"].text == "1.50"
    assert strictjson.dumps(value, indent=None) == text


def test_integers_longer_than_the_conversion_limit_survive():
    digits = "9" * 5000
    value = strictjson.loads(('{"n": %s}' % digits).encode(), exact=True)
    assert strictjson.dumps(value, indent=None) == '{"n":%s}' % digits
    # The fast path falls back to exact parsing instead of failing.
    assert strictjson.loads(('{"n": %s}' % digits).encode())["n"] == int(digits[:4000]) * 10**1000 + int(digits[4000:])


def test_dumps_matches_json_for_plain_values():
    value = {"a": [1, 2.5, None, True, False, 'é\n"q"'], "b": {}, "c": []}
    assert strictjson.dumps(value, indent=2) == json.dumps(value, indent=2, ensure_ascii=False)
    assert strictjson.dumps(value, indent=None) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_plain = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text()),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(_plain, st.sampled_from([None, 2, 4]), st.booleans())
def test_property_dumps_writes_what_json_dumps_writes_for_plain_values(value, indent, sort_keys):
    expected = json.dumps(
        value, indent=indent, sort_keys=sort_keys, ensure_ascii=False, separators=(",", ":") if indent is None else None
    )
    # except that what a terminal would act on, and lone surrogates, are \uXXXX escapes
    expected = _terminal_escaped(expected)
    assert strictjson.dumps(value, indent=indent, sort_keys=sort_keys) == expected
    assert json.loads(strictjson.dumps(value, indent=indent, sort_keys=sort_keys)) == value


_number_texts = st.one_of(
    st.integers().map(str),
    st.integers(min_value=-(10**60), max_value=10**60).map(str),
    st.builds(
        lambda i, f, e: f"{i}.{f}e{e}",
        st.integers(-999, 999),
        st.from_regex(r"[0-9]{1,20}", fullmatch=True),
        st.integers(-400, 400),
    ),
    st.builds(lambda i, f: f"{i}.{f}", st.integers(-(10**30), 10**30), st.from_regex(r"[0-9]{1,30}", fullmatch=True)),
)
_json_docs = st.recursive(
    st.one_of(st.none(), st.booleans(), st.text(max_size=20), _number_texts.map(lambda t: ("#num", t))),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=30,
)


def _terminal_escaped(text: str) -> str:
    """json.dumps text with what dumps writes as \\uXXXX escapes instead: DEL, C1
    controls, line separators, bidirectional overrides and lone surrogates."""
    return re.sub("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


def _render(node) -> str:
    if isinstance(node, tuple):
        return node[1]
    if isinstance(node, list):
        return "[" + ",".join(_render(n) for n in node) + "]"
    if isinstance(node, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _render(v) for k, v in node.items()) + "}"
    return json.dumps(node, ensure_ascii=False)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _json_docs, max_size=5))
def test_property_exact_round_trip_keeps_every_number_text(doc):
    text = _render(doc)
    value = strictjson.loads(text.encode(), exact=True)
    assert strictjson.dumps(value, indent=None) == _terminal_escaped(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_property_random_bytes_raise_only_json_errors(data):
    try:
        strictjson.loads(data, require_object=False)
    except JSONError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=5), st.integers(), min_size=1, max_size=5))
def test_property_any_duplicated_key_is_rejected(doc):
    key = next(iter(doc))
    body = ",".join(f"{json.dumps(k)}:{v}" for k, v in doc.items())
    data = ("{" + body + f",{json.dumps(key)}:0" + "}").encode()
    with pytest.raises(JSONError) as info:
        strictjson.loads(data)
    assert info.value.reason == f"duplicate key {key!r}"


def test_read_json_errors_name_the_file(tmp_path):
    with pytest.raises(InputError, match="missing.json: no such file"):
        safeio.read_json(tmp_path / "missing.json")
    with pytest.raises(InputError, match="is a directory"):
        safeio.read_json(tmp_path)
    big = tmp_path / "big.json"
    big.write_bytes(b"{}" + b" " * 100)
    with pytest.raises(InputError, match="larger than 10 bytes"):
        safeio.read_bytes(big, limit=10)


# ----------------------------------------------------------------------------- atomic writes


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_atomic_write_creates_private_file_with_mtime(tmp_path):
    target = tmp_path / "out.json"
    safeio.atomic_write(target, b"{}\n", mtime_ns=1_700_000_000_123_456_789)
    assert target.read_bytes() == b"{}\n"
    assert _mode(target) == 0o600
    assert os.stat(target).st_mtime_ns == 1_700_000_000_123_456_789
    assert os.listdir(tmp_path) == ["out.json"]


@pytest.mark.parametrize("fail_at", ["write", "fsync", "utime", "replace"])
def test_failure_keeps_old_bytes_and_mtime_and_leaves_no_temp(tmp_path, monkeypatch, fail_at):
    target = tmp_path / "side.trajectory.json"
    target.write_bytes(b"old")
    os.utime(target, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    if fail_at == "write":
        real_fdopen = os.fdopen

        class _Failing:
            def __init__(self, fh):
                self.fh = fh

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.fh.close()

            def fileno(self):
                return self.fh.fileno()

            def write(self, data):
                raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fdopen", lambda fd, mode: _Failing(real_fdopen(fd, mode)))
    else:
        monkeypatch.setattr(os, {"fsync": "fsync", "utime": "utime", "replace": "replace"}[fail_at], boom)
    with pytest.raises(InputError, match="cannot write .*No space left on device"):
        safeio.atomic_write(target, b"new", mtime_ns=1_700_000_000_000_000_000)
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert os.stat(target).st_mtime_ns == 1_600_000_000_000_000_000
    assert os.listdir(tmp_path) == ["side.trajectory.json"]


def test_symlinks_are_refused(tmp_path):
    real = tmp_path / "real.json"
    real.write_bytes(b"keep")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with pytest.raises(InputError, match="symbolic link"):
        safeio.atomic_write(link, b"x")
    with pytest.raises(InputError, match="already exists"):
        safeio.create_durable_file(link, b"x")
    realdir = tmp_path / "d"
    realdir.mkdir()
    linkdir = tmp_path / "ld"
    linkdir.symlink_to(realdir)
    with pytest.raises(InputError, match="symbolic link"):
        safeio.atomic_write(linkdir / "f.json", b"x")
    assert real.read_bytes() == b"keep"
    assert os.listdir(realdir) == []


def test_create_durable_file_refuses_existing_and_is_private(tmp_path):
    target = tmp_path / "new.json"
    safeio.create_durable_file(target, b"1")
    assert _mode(target) == 0o600 and target.read_bytes() == b"1"
    with pytest.raises(InputError, match="already exists"):
        safeio.create_durable_file(target, b"2")
    assert target.read_bytes() == b"1"
    assert sorted(os.listdir(tmp_path)) == ["new.json"]


def test_create_in_private_dir_writes_whole_private_files_in_one_open(tmp_path, monkeypatch):
    target = f"{tmp_path}/new.json"
    old = os.umask(0o277)  # a umask that would take the owner's write bit: the file is 0600 anyway
    try:
        safeio.create_in_private_dir(target, b"1")
    finally:
        os.umask(old)
    assert _mode(target) == 0o600 and open(target, "rb").read() == b"1"
    with pytest.raises(InputError) as info:
        safeio.create_in_private_dir(target, b"2")
    assert info.value.message == f"{target}: already exists; refusing to overwrite"
    assert open(target, "rb").read() == b"1" and sorted(os.listdir(tmp_path)) == ["new.json"]  # no temp file, ever


def test_create_in_private_dir_refuses_links_and_leaves_them(tmp_path):
    real = tmp_path / "real"
    real.write_bytes(b"keep")
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "dir").mkdir()
    (tmp_path / "linkdir").symlink_to(tmp_path / "dir")
    for name in ("link", "dangling"):
        with pytest.raises(InputError) as info:
            safeio.create_in_private_dir(f"{tmp_path}/{name}", b"x")
        assert info.value.message == f"{tmp_path}/{name}: already exists; refusing to overwrite"
        assert os.path.islink(tmp_path / name)
    with pytest.raises(InputError) as info:
        safeio.create_in_private_dir(f"{tmp_path}/linkdir/f", b"x")
    assert info.value.message == f"{tmp_path}/linkdir: is a symbolic link; refusing to write through it"
    assert real.read_bytes() == b"keep" and not (tmp_path / "nowhere").exists() and os.listdir(tmp_path / "dir") == []


class _FailingFile:
    """A file object whose write stores half of *data*, then raises *error*."""

    def __init__(self, fh, error: BaseException) -> None:
        self._fh, self._error = fh, error

    def write(self, data: bytes) -> int:
        self._fh.write(data[: len(data) // 2])
        raise self._error

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.__exit__(*exc)


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()], ids=["ENOSPC", "Ctrl-C"])
def test_create_in_private_dir_leaves_nothing_when_the_write_fails(tmp_path, monkeypatch, error):
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _FailingFile(real(fd, *a, **k), error))
    target = f"{tmp_path}/new.db"
    if isinstance(error, OSError):
        with pytest.raises(InputError) as info:
            safeio.create_in_private_dir(target, b"x" * 4096)
        assert info.value.message == f"{target}: cannot create (No space left on device)"
    else:
        with pytest.raises(KeyboardInterrupt):
            safeio.create_in_private_dir(target, b"x" * 4096)
    assert os.listdir(tmp_path) == []


def test_create_in_private_dir_removes_what_an_interrupted_open_created(tmp_path, monkeypatch):
    """Ctrl-C arriving as the open returns (the file exists, its descriptor is lost): removed."""
    real = os.open

    def interrupted(path, flags, mode=0o777):
        os.close(real(path, flags, mode))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", interrupted)
    with pytest.raises(KeyboardInterrupt):
        safeio.create_in_private_dir(f"{tmp_path}/new", b"x")
    assert os.listdir(tmp_path) == []


def test_create_in_private_dir_keeps_what_a_failed_open_did_not_create(tmp_path, monkeypatch):
    """An open that fails with an OSError created nothing, so nothing is removed (here: the file
    at the path stays, whoever made it)."""
    target = tmp_path / "there"
    target.write_bytes(b"keep")

    def failing(path, flags, mode=0o777):
        raise OSError(24, "Too many open files", path)

    monkeypatch.setattr(os, "open", failing)
    with pytest.raises(InputError) as info:
        safeio.create_in_private_dir(str(target), b"x")
    monkeypatch.undo()
    assert info.value.message == f"{target}: cannot create (Too many open files)"
    assert target.read_bytes() == b"keep"


@pytest.mark.parametrize(
    ("release", "reports"),
    [
        ("5.7.19", False),
        ("5.8.0", True),
        ("5.10.0-21-amd64", True),
        ("6.18.44-fc-v657", True),
        ("4.19.0", False),
        ("10.0", True),
        ("x", False),
        ("", False),
    ],
)
def test_syncfs_is_used_only_where_it_reports_writeback_errors(release, reports):
    assert safeio._kernel_reports_syncfs_errors(release) is reports


def test_syncfs_without_the_function_is_false(tmp_path, monkeypatch):
    monkeypatch.setattr(safeio, "_syncfs_function", lambda: None)
    fd = safeio.filesystem_handle(tmp_path)
    try:
        assert safeio.syncfs(fd) is False
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    ("magic", "used"), [(0xEF53, True), (0x9123683E, True), (0x65735546, False), (0x6969, False), (None, False)]
)
def test_syncfs_only_on_filesystems_where_it_commits_everything(tmp_path, monkeypatch, magic, used):
    """ext4, btrfs: used; FUSE (0x65735546), NFS (0x6969) or an unknown type: each file is fsynced instead."""
    calls = []
    monkeypatch.setattr(safeio, "_syncfs_function", lambda: lambda fd: calls.append(fd) or 0)
    monkeypatch.setattr(safeio, "_filesystem_type", lambda fd: magic)
    assert safeio.syncfs(7) is used and calls == ([7] if used else [])


LINUX_58 = sys.platform.startswith("linux") and safeio._kernel_reports_syncfs_errors(os.uname().release)


@pytest.mark.skipif(not LINUX_58 or not shutil.which("stat"), reason="Linux 5.8+ and stat(1)")
@pytest.mark.parametrize("where", ["tmp", "/proc", "/dev/shm"])
def test_the_filesystem_type_is_statfs_f_type(tmp_path, where):
    directory = tmp_path if where == "tmp" else Path(where)
    if not directory.is_dir():
        pytest.skip(f"no {where}")
    expected = int(subprocess.run(["stat", "-f", "-c", "%t", directory], capture_output=True, text=True, check=True).stdout, 16)
    fd = safeio.filesystem_handle(directory)
    try:
        assert safeio._filesystem_type(fd) == expected
    finally:
        os.close(fd)


@pytest.mark.skipif(not LINUX_58, reason="Linux 5.8+")
def test_syncfs_on_linux(tmp_path):
    fd = safeio.filesystem_handle(tmp_path)
    try:
        assert safeio.syncfs(fd) is (safeio._filesystem_type(fd) in safeio.SYNCFS_FILESYSTEMS)
        assert safeio._syncfs_function()(fd) == 0  # the real call, whatever the filesystem
    finally:
        os.close(fd)
    closed = fd
    assert safeio._syncfs_function()(closed) == -1  # EBADF: a failure, never an exception
    assert safeio.syncfs(closed) is False


@pytest.mark.parametrize("how", ["works", "fails", "unavailable"])
def test_sync_files_uses_one_syncfs_or_fsyncs_everything(tmp_path, monkeypatch, how):
    top = tmp_path / "top"
    fd = None
    try:
        fd = safeio.filesystem_handle(tmp_path) if how != "unavailable" else None
        safeio.make_private_dir(top / "a")
        for name in ("top/a/1", "top/a/2", "top/3"):
            safeio.create_in_private_dir(f"{tmp_path}/{name}", b"x")
        calls, fsynced = [], []
        monkeypatch.setattr(safeio, "_syncfs_function", lambda: lambda fd: calls.append(fd) or (0 if how == "works" else -1))
        monkeypatch.setattr(safeio, "_filesystem_type", lambda fd: 0xEF53)
        real = os.fsync
        monkeypatch.setattr(os, "fsync", lambda d: fsynced.append(os.fstat(d).st_ino) or real(d))
        safeio.sync_files([top / "a" / "1", top / "a" / "2", top / "3"], top, filesystem=fd)
    finally:
        if fd is not None:
            os.close(fd)
    assert calls == ([] if how == "unavailable" else [fd])
    inodes = [os.stat(p).st_ino for p in (top / "a" / "1", top / "a" / "2", top / "3", top / "a", top)]
    assert fsynced == ([] if how == "works" else inodes)  # files in order, then directories, children first


def test_make_private_dir(tmp_path):
    made = safeio.make_private_dir(tmp_path / "a" / "b")
    assert _mode(tmp_path / "a") == 0o700 and _mode(made) == 0o700
    with pytest.raises(InputError, match="already exists"):
        safeio.make_private_dir(made)
    assert safeio.make_private_dir(made, exist_ok=True) == made
    link = tmp_path / "link"
    link.symlink_to(made)
    with pytest.raises(InputError, match="already exists"):
        safeio.make_private_dir(link, exist_ok=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda p: safeio.read_bytes(p),
        lambda p: safeio.atomic_write(p, b"x"),
        lambda p: safeio.create_durable_file(p, b"x"),
        lambda p: safeio.create_in_private_dir(p, b"x"),
        lambda p: safeio.append(p, b"x"),
        lambda p: safeio.make_private_dir(p),
    ],
    ids=["read_bytes", "atomic_write", "create_durable_file", "create_in_private_dir", "append", "make_private_dir"],
)
def test_a_nul_in_a_path_is_an_input_error_naming_it(tmp_path, call):
    with pytest.raises(InputError) as info:
        call(f"{tmp_path}/a\0b")
    assert info.value.message == f"{tmp_path}/a\\0b: path contains a NUL byte"
    assert info.value.exit_code == 2 and list(tmp_path.iterdir()) == []


_keys = st.one_of(st.sampled_from(["a", "b", "\\u0061", "\\ud800", "\\ud83d\\ude00"]), st.text(max_size=4))
_objects_with_repeats = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.text(max_size=10),
        _number_texts.map(lambda t: ("#num", t)),
        st.sampled_from([("#num", "1e400"), ("#num", "-0"), ("#num", "9" * 4400), ("#num", "NaN")]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.lists(st.tuples(_keys, children), max_size=4).map(lambda p: ("#obj", p))
    ),
    max_leaves=30,
)


def _render_raw(node, ascii_only: bool) -> str:
    """JSON text that may repeat keys and spells escapes in the key itself (``\\u0061`` is ``a``)."""
    if isinstance(node, tuple) and node[0] == "#num":
        return node[1]
    if isinstance(node, tuple):
        return (
            "{"
            + ",".join(
                (f'"{k}"' if k.startswith("\\u") else json.dumps(k, ensure_ascii=ascii_only)) + ":" + _render_raw(v, ascii_only)
                for k, v in node[1]
            )
            + "}"
        )
    if isinstance(node, list):
        return "[" + ",".join(_render_raw(n, ascii_only) for n in node) + "]"
    return json.dumps(node, ensure_ascii=ascii_only)


def _outcome(data) -> tuple:
    try:
        value = strictjson.loads(data, require_object=False)
    except JSONError as exc:
        return ("error", exc.reason, exc.pointer)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # print integers of any length
    try:
        return ("value", json.dumps(value))  # 1, 1.0 and true all print differently
    finally:
        sys.set_int_max_str_digits(limit)


@settings(max_examples=300, deadline=None)
@given(_objects_with_repeats, st.booleans())
def test_property_fast_path_equals_the_json_path(node, ascii_only):
    """Bytes go to jiter first; a str always takes the json path. Both must give the same value
    (same types) or the same error, whatever jiter accepts or refuses."""
    text = _render_raw(node, ascii_only)
    assert _outcome(text.encode("utf-8", "surrogatepass")) == _outcome(text)


def _swap_types(value):
    """1 -> true, 0 -> false, ints -> floats: equal under ==, a different JSON value."""
    if isinstance(value, dict):
        return {k: _swap_types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap_types(v) for v in value]
    if type(value) is int:
        return bool(value) if value in (0, 1) else float(value) if abs(value) < 2**53 else value
    return value


@settings(max_examples=200, deadline=None)
@given(_plain, st.booleans(), st.integers(min_value=2**64, max_value=2**70))
def test_property_json_key_is_equal_exactly_when_the_canonical_json_is(value, swap, big):
    other = _swap_types(value) if swap else json.loads(json.dumps(value))
    canonical = [strictjson.dumps(v, indent=None, sort_keys=True) for v in (value, other)]
    assert (strictjson.json_key(value) == strictjson.json_key(other)) == (canonical[0] == canonical[1])
    assert strictjson.json_key({"n": big, "v": value}) == strictjson.json_key({"v": value, "n": big})  # beyond orjson: json path
    assert strictjson.json_key(RawFloat("1.50")) != strictjson.json_key(RawFloat("1.5"))
    assert strictjson.json_key([[[]]] * 2) == strictjson.json_key([[[]], [[]]])


def test_json_key_of_a_value_nested_beyond_every_writer_is_none():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert strictjson.json_key(deep) is None
    assert strictjson.json_key([[[]]] * 300) is not None  # wide is fine


# ----------------------------------------------------------------------------- dumps: the orjson path

_SPECIAL_CHARS = (
    [chr(c) for c in range(0x20)]
    + ['"', "\\", "/", "\x7f", "\x80", "\x85", "\x9f", "\xa0", "é", "\u2028", "\u2029"]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u2065", "\u206a", "\u2027", "\u202f", "\ufeff", "\uffff", "😀", "\ud800", "\udbff", "\udc80", "\udcff"]
)
_any_text = st.text(st.one_of(st.characters(), st.sampled_from(_SPECIAL_CHARS)), max_size=8)


_unescaped_text = st.text(  # what dumps writes as it is (controls become the same escapes in both encoders)
    st.characters().filter(lambda c: not re.match("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]", c))
    | st.sampled_from([chr(c) for c in range(0x20)] + ['"', "\\"])
)


class _Colour(enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 3


class _Name(enum.StrEnum):
    A = "a"


_any_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30]),
    st.floats(),  # NaN and infinities included: both encoders refuse them
    st.sampled_from([1e-05, 1e16, 1e-7, 1.0, -0.0, 123456789012345680.0, 0.0001]),
    st.builds(RawFloat, st.sampled_from(["1.50", "1E+5", "-0", "1e400", "2.5e-7"])),
    _any_text,
    st.sampled_from([_Level.HIGH, _Name.A, _Colour.RED]),
)
_any_value = st.recursive(
    _any_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(_any_text, children, max_size=4),
        st.dictionaries(st.one_of(_any_text, st.integers(0, 3)), children, max_size=2),  # non-str keys
    ),
    max_leaves=25,
)


def _dumps_outcome(write, value, indent, sort_keys):
    try:
        return write(value, indent=indent, sort_keys=sort_keys)
    except (TypeError, ValueError) as exc:
        return type(exc)


@settings(max_examples=1000, deadline=None)
@given(_any_value, st.sampled_from([None, 2, 4]), st.booleans())
def test_property_dumps_is_the_python_encoder_on_any_value(value, indent, sort_keys):
    """The orjson path writes exactly what the pure-Python encoder writes, or is not taken."""
    expected = _dumps_outcome(
        lambda v, **kw: strictjson._python_dumps(v, kw["indent"], kw["sort_keys"]), value, indent, sort_keys
    )
    assert _dumps_outcome(strictjson.dumps, value, indent, sort_keys) == expected
    encoded = expected.encode() if isinstance(expected, str) else expected
    assert _dumps_outcome(strictjson.dumps_bytes, value, indent, sort_keys) == encoded


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), _unescaped_text),
        lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(_unescaped_text, children, max_size=4)),
        max_leaves=30,
    ),
    st.sampled_from([None, 2]),
    st.booleans(),
)
def test_property_plain_json_takes_the_orjson_path(value, indent, sort_keys):
    fast = strictjson._orjson_dumps(value, indent, sort_keys)
    assert fast is not None
    assert fast == strictjson._python_dumps(value, indent, sort_keys).encode()


def test_orjson_path_on_a_sidecar_like_document():
    doc = {"steps": [{"type": "CORTEX_STEP_TYPE_USER_INPUT", "n": 2**63, "ok": True, "x": None, "e": {}, "l": []}]}
    expected = (
        '{\n  "steps": [\n    {\n      "type": "CORTEX_STEP_TYPE_USER_INPUT",\n      "n": 9223372036854775808,\n'
        '      "ok": true,\n      "x": null,\n      "e": {},\n      "l": []\n    }\n  ]\n}'
    )
    assert strictjson._orjson_dumps(doc, 2, False) == expected.encode()
    assert strictjson.dumps(doc) == expected
    assert (
        strictjson.dumps({"b": "é", "a": [1, "\x1b\x00\t"]}, indent=None, sort_keys=True)
        == '{"a":[1,"\\u001b\\u0000\\t"],"b":"é"}'
    )


@pytest.mark.parametrize(
    ("value", "indent", "text"),
    [
        ({"f": 1e-05}, None, '{"f":1e-05}'),  # orjson: 0.00001
        ({"f": 1e16}, None, '{"f":1e+16}'),  # orjson: 1e16
        ([1.0, -0.0, 0.0001], None, "[1.0,-0.0,0.0001]"),
        ({"f": RawFloat("1.50")}, 2, '{\n  "f": 1.50\n}'),
        ({"n": 2**64}, None, '{"n":18446744073709551616}'),  # beyond orjson's 64 bits
        ([-(2**63) - 1], None, "[-9223372036854775809]"),
        (["\udcff"], None, '["\\udcff"]'),  # a lone surrogate: orjson refuses it
        (["\x7f\x80\x9f"], None, '["\\u007f\\u0080\\u009f"]'),  # orjson writes these as they are
        (["a\u2028b\u2029"], None, '["a\\u2028b\\u2029"]'),
        (["\u202a\u202e\u2066\u2069"], None, '["\\u202a\\u202e\\u2066\\u2069"]'),
        ([_Level.HIGH, _Name.A], None, '[3,"a"]'),  # subclasses as their base type
        (collections.OrderedDict(b=1, a=2), None, '{"b":1,"a":2}'),
        ({"a": [1]}, 4, '{\n    "a": [\n        1\n    ]\n}'),  # an indent orjson does not have
    ],
)
def test_dumps_falls_back_to_the_python_encoder(value, indent, text):
    assert strictjson._orjson_dumps(value, indent, False) is None
    assert strictjson.dumps(value, indent=indent) == text
    assert strictjson.dumps_bytes(value, indent=indent) == text.encode()


@pytest.mark.parametrize(
    ("value", "indent", "text"),
    [
        ((1, (2,)), 2, "[\n  1,\n  [\n    2\n  ]\n]"),  # tuples as lists
        ([[]] * 2 + [{}], 2, "[\n  [],\n  [],\n  {}\n]"),
        ({}, 2, "{}"),
        ('\x1f\b\f\r\n\t"\\/', None, '"\\u001f\\b\\f\\r\\n\\t\\"\\\\/"'),
        ([None, True, False, -(2**63), 2**64 - 1], None, "[null,true,false,-9223372036854775808,18446744073709551615]"),
    ],
)
def test_dumps_takes_the_orjson_path(value, indent, text):
    assert strictjson._orjson_dumps(value, indent, False) == text.encode()
    assert strictjson.dumps(value, indent=indent) == text == strictjson._python_dumps(value, indent, False)


def test_dumps_deeper_than_orjson_writes():
    value: list = []
    for _ in range(300):  # orjson stops at 255 levels
        value = [value]
    assert strictjson._orjson_dumps(value, None, False) is None
    assert strictjson.dumps(value, indent=None) == "[" * 301 + "]" * 301


@dataclasses.dataclass
class _Point:
    x: int


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ({"f": float("nan")}, ValueError),  # orjson: null
        ([float("inf")], ValueError),
        ([_Colour.RED], TypeError),  # orjson: "red"
        ([uuid.UUID(int=1)], TypeError),  # orjson: the UUID text
        ([_Point(1)], TypeError),
        ([datetime.date(2026, 1, 1)], TypeError),
        ([orjson.Fragment(b"1")], TypeError),
        ({1: 2}, TypeError),
        ({_Name.A: 1}, TypeError),  # a str subclass as a key
        ({"s": {1, 2}}, TypeError),
    ],
)
def test_dumps_refuses_what_the_python_encoder_refuses(value, error):
    assert strictjson._orjson_dumps(value, None, False) is None
    for write in (strictjson.dumps, strictjson.dumps_bytes):
        with pytest.raises(error):
            write(value, indent=None)


def test_sort_keys_orders_by_code_point():
    value = {"é": 1, "z": 2, "😀": 3, "\uffff": 4, "A": 5}
    assert strictjson._orjson_dumps(value, None, True) == '{"A":5,"z":2,"é":1,"\uffff":4,"😀":3}'.encode()
    assert strictjson.dumps(value, indent=None, sort_keys=True) == '{"A":5,"z":2,"é":1,"\uffff":4,"😀":3}'
