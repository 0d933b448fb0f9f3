"""Client for the Antigravity language-server daemon: Connect-style unary JSON over HTTP.

``POST <base>/exa.language_server_pb.LanguageServerService/<Method>`` with ``Content-Type:
application/json``, ``Connect-Protocol-Version: 1`` and, when a token is known,
``x-codeium-csrf-token``. ``http.client`` is used directly (not ``urllib``) so that no proxy from
the environment and no redirect can ever carry the token elsewhere, and so that the per-call
timeout is one deadline for the whole call: connect, TLS handshake, request, status line, headers and
body together (every read and write of the socket checks it).

Safety: only loopback endpoints unless ``allow_remote``; the CSRF token is held in a ``Secret``
whose ``repr``/``str`` are redacted, it is sent only as a header, and every error message is
scrubbed of it. A 401/403 answer is reported without its body.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import json
import select
import socket
import ssl
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from audit.csrf import Secret, scrub
from audit.errors import FindingsError, UsageError
from audit.safeio import MAX_DOCUMENT_BYTES
from audit.strictjson import JSONError, json_type, loads

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

SERVICE = "exa.language_server_pb.LanguageServerService"
GENERATOR_METADATA = "GetCascadeTrajectoryGeneratorMetadata"
"""The call whose answer a daemon sweep keeps per conversation (codeburn's source of usage)."""
KEPT_CALLS = (GENERATOR_METADATA,)
"""The calls whose answers a daemon sweep keeps (``audit.store.corpus.ANSWERS``)."""
MAX_RESPONSE = MAX_DOCUMENT_BYTES  # bytes; a larger daemon answer is refused (the sidecar limit)
PROBE_TIMEOUT = 1.0  # seconds for the TCP reachability probe
_MESSAGE_LIMIT = 300


class DaemonError(FindingsError):
    """A daemon call failed (transport, HTTP status, Connect error or unusable answer)."""


class AuthError(DaemonError):
    """The daemon refused the call (HTTP 401/403): the CSRF token is missing or wrong."""


class DaemonTimeout(DaemonError):
    """The daemon did not answer within the per-call timeout."""


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and for IPv4/IPv6 loopback literals; names are never resolved."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_endpoint(url: str, *, allow_remote: bool = False) -> str:
    """The normalised base URL (``scheme://host:port[/path]``), or ``UsageError``.

    Refuses other schemes, user info, queries and fragments (nothing secret may ride in the URL)
    and, unless *allow_remote*, any host that is not loopback. Messages never repeat the URL's
    user info.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise UsageError("daemon URL is not a valid http(s) URL with a port") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or port is None:
        raise UsageError("daemon URL must look like http://127.0.0.1:PORT")
    if "@" in parts.netloc or parts.query or parts.fragment:
        raise UsageError("daemon URL must not contain user info, a query or a fragment")
    host = parts.hostname
    if not allow_remote and not is_loopback(host):
        raise UsageError(f"daemon host {host} is not a loopback address; pass --allow-remote-daemon to use it")
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}:{port}{parts.path.rstrip('/')}"


@dataclass(frozen=True)
class Fetched:
    """A trajectory as the daemon sent it: ``raw`` is the exact bytes of the ``trajectory`` member."""

    raw: bytes
    trajectory: dict[str, Any]
    requested_id: str  # the id GetCascadeTrajectory answered for (file id or internal id)


class DaemonClient:
    def __init__(self, url: str, token: Secret | None = None, *, timeout: float = 30.0, allow_remote: bool = False) -> None:
        self.url = check_endpoint(url, allow_remote=allow_remote)
        self._token = token
        self.timeout = timeout
        parts = urlsplit(self.url)
        self._https = parts.scheme == "https"
        assert parts.hostname is not None  # check_endpoint refuses a URL without a host
        self._host, self._port, self._prefix = parts.hostname, parts.port, parts.path
        self._loopback = is_loopback(self._host)

    def __repr__(self) -> str:
        return f"DaemonClient({self.url!r}, token={'set' if self._token else 'none'})"

    def reachable(self) -> bool:
        """Whether something accepts TCP connections at the endpoint (no request is sent)."""
        try:
            with socket.create_connection((self._host, self._port), timeout=min(PROBE_TIMEOUT, self.timeout)):
                return True
        except OSError:
            return False

    def call(self, method: str, body: dict[str, Any]) -> bytes:
        """POST one unary call; the raw response body on HTTP 200, else a ``DaemonError``."""
        headers = {"Content-Type": "application/json", "Connect-Protocol-Version": "1", "Accept": "application/json"}
        if self._token is not None:
            headers["x-codeium-csrf-token"] = self._token.reveal()
        deadline = time.monotonic() + self.timeout
        conn = self._connection()
        try:
            conn.sock = _DeadlineSocket(self._open_socket(deadline), deadline)
            conn.request("POST", f"{self._prefix}/{SERVICE}/{method}", json.dumps(body).encode(), headers)
            response = conn.getresponse()  # status line and headers: every read checks the deadline
            data = self._read(response)
        except TimeoutError:
            raise DaemonTimeout(f"{method}: no answer from the daemon within {self.timeout:g}s") from None
        except ConnectionRefusedError:
            raise DaemonError(f"{method}: cannot connect to the daemon at {self.url} (is agy running?)") from None
        except (OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise DaemonError(f"{method}: call to {self.url} failed: {self.shown(reason)}") from None
        finally:
            conn.close()
        if response.status in (401, 403):
            raise AuthError(
                f"daemon authentication failed: HTTP {response.status} on {method} "
                "(check CSRF token discovery or ANTIGRAVITY_CSRF_TOKEN)"
            )
        if response.status != 200:
            raise DaemonError(scrub(f"daemon error HTTP {response.status} on {method}: {_connect_message(data)}"))
        return data

    def fetch_trajectory(self, file_id: str, internal_id: str | None = None) -> Fetched:
        """``LoadTrajectory(file_id)`` then ``GetCascadeTrajectory``; on failure, Get again with *internal_id*."""
        self.call("LoadTrajectory", {"cascadeId": file_id})
        try:
            return self._get(file_id)
        except AuthError:
            raise
        except DaemonError as first:
            if not internal_id or internal_id == file_id:
                raise
            try:
                return self._get(internal_id)
            except DaemonError as second:
                raise type(second)(f"{first}; retry with internal cascade id {internal_id}: {second}") from None

    def _get(self, cascade_id: str) -> Fetched:
        method = "GetCascadeTrajectory"
        body = self.call(method, {"cascadeId": cascade_id})
        try:
            raw, value = trajectory_member(body)
        except JSONError as exc:
            raise DaemonError(f"{method}: malformed response envelope: {self.shown(exc.reason)}") from None
        return Fetched(raw, value, cascade_id)

    def _connection(self) -> http.client.HTTPConnection:
        # never connects by itself: call() hands it a socket opened under the call's deadline
        return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)

    def _open_socket(self, deadline: float) -> socket.socket:
        """A connected (for https: handshaken) socket, within *deadline*."""
        sock = socket.create_connection((self._host, self._port), timeout=_remaining(deadline))
        if not self._https:
            return sock
        context = ssl.create_default_context()
        if self._loopback:  # the local daemon's HTTPS port uses a self-signed certificate
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        try:
            tls = context.wrap_socket(sock, server_hostname=self._host, do_handshake_on_connect=False)
            tls.setblocking(False)
            while True:  # the handshake under the deadline, however slowly the peer sends it
                try:
                    tls.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    ready = select.select([tls], [], [], _remaining(deadline))[0]
                except ssl.SSLWantWriteError:
                    ready = select.select([], [tls], [], _remaining(deadline))[1]
                if not ready:
                    raise TimeoutError
            tls.settimeout(_remaining(deadline))
            return tls
        except BaseException:
            sock.close()
            raise

    @staticmethod
    def _read(response: http.client.HTTPResponse) -> bytes:
        if response.length is not None and response.length > MAX_RESPONSE:  # refused before a byte is read
            raise http.client.HTTPException(f"answer larger than {MAX_RESPONSE} bytes")
        chunks, size = [], 0
        while chunk := response.read1(1 << 16):
            size += len(chunk)
            if size > MAX_RESPONSE:
                raise http.client.HTTPException(f"answer larger than {MAX_RESPONSE} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def shown(self, value: object, limit: int = _MESSAGE_LIMIT) -> str:
        """Daemon bytes made into message text: the token scrubbed *first*, then whitespace
        collapsed and the text cut to *limit* characters (a cut can never leave part of it)."""
        return shown(value, limit)


def _remaining(deadline: float) -> float:
    """Seconds left before *deadline*; ``TimeoutError`` when none are."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


class _DeadlineSocket:
    """A connected socket whose every send and receive must finish before one deadline, so a
    peer that trickles its status line, headers or body (a byte at a time) cannot stretch a call
    beyond its timeout. ``http.client`` uses ``sendall``, ``makefile`` and ``close``."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock, self._deadline = sock, deadline
        self._readers, self._closed = 0, False  # as a socket's makefile: closed when the last user is

    def sendall(self, data: bytes) -> None:
        self._sock.settimeout(_remaining(self._deadline))
        self._sock.sendall(data)  # the timeout bounds the whole sendall

    def recv_into(self, buffer: WriteableBuffer, nbytes: int = 0) -> int:
        self._sock.settimeout(_remaining(self._deadline))
        return self._sock.recv_into(buffer, nbytes)

    def makefile(self, mode: str = "rb", buffering: int | None = None) -> io.BufferedReader:
        self._readers += 1
        return io.BufferedReader(_DeadlineReader(self))

    def release(self) -> None:
        self._readers -= 1
        if self._closed and self._readers <= 0:
            self._sock.close()

    def close(self) -> None:
        # http.client closes the connection while a close-delimited answer is still being read
        self._closed = True
        if self._readers <= 0:
            self._sock.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self._sock, name)


class _DeadlineReader(io.RawIOBase):
    def __init__(self, sock: _DeadlineSocket) -> None:
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        return self._sock.recv_into(buffer)

    def close(self) -> None:
        if not self.closed:
            self._sock.release()
        super().close()


def shown(value: object, limit: int = _MESSAGE_LIMIT) -> str:
    """*value* (daemon bytes) as one line of message text: scrubbed, whitespace collapsed, cut."""
    return scrub(" ".join(str(value).split()))[:limit]


def _connect_message(body: bytes) -> str:
    """The ``message`` (and ``code``) of a Connect error envelope, one line, scrubbed of every token
    before it is cut; never the raw body."""
    try:
        doc = loads(body, source="error body")
    except JSONError:
        return "no Connect error message"
    message, code = doc.get("message"), doc.get("code")
    text = shown(message) if isinstance(message, str) and message.strip() else "no message"
    if isinstance(code, str) and code.isidentifier() and scrub(code) == code and len(code) <= 64:
        return f"{text} ({code})"
    return text


# ----------------------------------------------------------------------------- envelope


def trajectory_member(body: bytes) -> tuple[bytes, dict[str, Any]]:
    """The exact bytes and the parsed value of the top-level ``trajectory`` member of *body*.

    The envelope is parsed strictly first (``JSONError`` for anything that is not a JSON object);
    a missing, null or non-object ``trajectory`` is a ``JSONError`` too. The member's bytes are
    then sliced out of *body* unchanged and checked by parsing them again.
    """
    envelope = loads(body, source="GetCascadeTrajectory response", exact=True)
    if "trajectory" not in envelope:
        raise JSONError("GetCascadeTrajectory response", "empty envelope: no trajectory member")
    value = envelope["trajectory"]
    if not isinstance(value, dict):
        raise JSONError("GetCascadeTrajectory response", f"trajectory is {json_type(value)}, not an object", "/trajectory")
    raw = member_bytes(body, "trajectory")
    if loads(raw, source="trajectory member", exact=True) != value:  # pragma: no cover - defensive
        raise JSONError("GetCascadeTrajectory response", "could not isolate the trajectory bytes")
    return raw, value


_WS = " \t\n\r"
_SKIPPER = json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=str)


def member_bytes(body: bytes, name: str) -> bytes:
    """The bytes of member *name* of the top-level object of *body*, which must be valid JSON.

    Works on the decoded text (UTF-8 round-trips exactly) by walking the top-level members: each
    key with ``scanstring``, each value's extent with ``raw_decode``; numbers stay text so no value
    is converted. ``KeyError`` when there is no such member.
    """
    text = body.decode("utf-8")

    def skip(i: int) -> int:
        while i < len(text) and text[i] in _WS:
            i += 1
        return i

    i = skip(0) + 1  # past "{"
    while True:
        i = skip(i)
        if text[i] == "}":
            raise KeyError(name)
        key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]  # in json.decoder at run time; typeshed omits it
        i = skip(skip(i) + 1)  # past ":"
        _, end = _SKIPPER.raw_decode(text, i)
        if key == name:
            return text[i:end].encode("utf-8")
        i = skip(end)
        if text[i] == ",":
            i += 1
