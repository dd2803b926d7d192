"""The direct channel between Python and the adapter in the page: a WebSocket on loopback.

A call through the browser's automation protocol (Playwright's ``evaluate``, Selenium's
``execute_script``) crosses several processes and costs 2-10 ms on this machine class; the
page answering on a WebSocket of its own costs about one, which is what lets a closed-loop
agent take one call per step at about 1,000 steps/s. The page connects to a listening socket
on 127.0.0.1 and must present this channel's random token; every page load opens a new
connection and the newest one wins.

The socket is served in the calling thread (wsproto does the WebSocket framing, without I/O
of its own), so a call costs no thread hand-offs. Requests are JSON ``{"m": call, "a":
[args]}``; the page answers records as binary (one float64 dropped count, then the records)
and anything else as JSON ``{"r": result}`` or ``{"error": message}`` (see
``adapter_js/qwop_adapter.js``). While the page streams (the adapter's ``stream`` call), it
also pushes each update's record unasked, as binary whose first float64 is -1; those are kept
apart from the replies and read with :meth:`DirectChannel.pushed`.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import select
import socket
import time
from collections import deque
from typing import Any

import numpy as np
import wsproto
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Message,
    RejectConnection,
    Request,
    TextMessage,
)
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from browser_env.errors import BrowserHarnessError

HANDSHAKE_S = 2.0  # for a client to send its whole request; the page's comes within milliseconds


class ChannelError(BrowserHarnessError):
    """The page's side of the channel reported an error, or the connection broke."""


class _Connection:
    """One page's WebSocket, driven from the calling thread."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self.ws = wsproto.WSConnection(wsproto.ConnectionType.SERVER)
        self._parts: list[bytes | str] = []
        self._ready: deque[Any] = deque()  # events parsed from data already read, not yet used
        self._timeout: float | None = None

    def _events(self, timeout_s: float) -> list[Any]:
        if timeout_s != self._timeout:  # a blocking recv with a timeout: one system call per read
            self.sock.settimeout(timeout_s)
            self._timeout = timeout_s
        try:
            data = self.sock.recv(1 << 20)
        except (TimeoutError, BlockingIOError):  # a timeout of 0 makes the socket non-blocking: a poll
            raise TimeoutError("no answer from the page") from None
        if not data:
            raise ConnectionError("the page closed the channel")
        return self._parse(data)

    def _parse(self, data: bytes) -> list[Any]:
        try:
            self.ws.receive_data(data)
            return list(self.ws.events())
        except (RemoteProtocolError, LocalProtocolError) as exc:
            raise ConnectionError(f"not a WebSocket message ({exc})") from None

    def handshake_step(self, token: str) -> bool | None:
        """Read what the client has sent so far (the socket is readable): True once it asked
        for this channel's token and was accepted, False if it is refused or broke, None while
        its request is still incomplete."""
        try:
            data = self.sock.recv(1 << 16)
            if not data:
                return False
            for ev in self._parse(data):
                if isinstance(ev, Request):
                    if ev.target != f"/{token}":
                        self.sock.sendall(self.ws.send(RejectConnection(status_code=403)))
                        return False
                    self.sock.sendall(self.ws.send(AcceptConnection()))
                    return True
        except (ConnectionError, OSError):
            return False
        return None

    def ws_pending(self) -> bool:
        """Whether whole messages are already parsed and waiting (no socket read needed)."""
        return bool(self._ready)

    def send_text(self, text: str) -> None:
        self.sock.sendall(self.ws.send(TextMessage(data=text)))

    def receive(self, timeout_s: float) -> bytes | str:
        """The next whole message; ``timeout_s`` bounds each wait for data. One read from the
        socket may hold several messages: the ones after the first wait in ``_ready``."""
        while True:
            if not self._ready:
                self._ready.extend(self._events(timeout_s))
            while self._ready:
                ev = self._ready.popleft()
                if isinstance(ev, Message):
                    self._parts.append(ev.data)
                    if ev.message_finished:
                        parts, self._parts = self._parts, []
                        if isinstance(ev, BytesMessage):
                            return b"".join(p for p in parts if isinstance(p, bytes | bytearray))
                        return "".join(p for p in parts if isinstance(p, str))
                elif isinstance(ev, CloseConnection):
                    raise ConnectionError("the page closed the channel")

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the page may be gone already
            self.sock.sendall(self.ws.send(CloseConnection(code=1000)))
        self.sock.close()


class DirectChannel:
    """A listening socket on 127.0.0.1 that the adapter connects to from the page."""

    def __init__(self) -> None:
        self._token = secrets.token_hex(16)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._conn: _Connection | None = None
        self._pushed: deque[np.ndarray] = deque()  # records pushed by the page, not yet read

    @property
    def url(self) -> str:
        """What the page connects to (the token is the path)."""
        return f"ws://127.0.0.1:{self._listener.getsockname()[1]}/{self._token}"

    def wait_connected(self, timeout_s: float) -> bool:
        """After a page load: accept the page's new connection. The older one belonged to the
        page that was replaced, so it is closed first; without a new one, calls go through the
        driver (``connected`` is false).

        Any local process can connect to the port. Clients are read side by side, each with
        ``HANDSHAKE_S`` to send a whole request with the token, all within ``timeout_s``: an
        idle, slow or garbled client is dropped and does not hold up the page's connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._pushed.clear()
        deadline = time.monotonic() + timeout_s
        newest: _Connection | None = None
        pending: dict[socket.socket, tuple[_Connection, float]] = {}  # client -> (its connection, its deadline)
        try:
            while True:
                now = time.monotonic()
                for sock, (conn, until) in list(pending.items()):
                    if now > until:
                        conn.close()
                        del pending[sock]
                if now >= deadline:
                    break
                # After a page has connected, only take what is already waiting (a page that reloaded).
                wait = 0.0 if newest is not None else min([deadline] + [u for _, u in pending.values()]) - now
                ready = select.select([self._listener, *pending], [], [], max(0.0, wait))[0]
                if not ready:
                    if newest is not None or time.monotonic() >= deadline:
                        break
                    continue
                for sock in ready:
                    if sock is self._listener:
                        client, _ = self._listener.accept()
                        pending[client] = (_Connection(client), time.monotonic() + HANDSHAKE_S)
                        continue
                    conn = pending[sock][0]
                    ok = conn.handshake_step(self._token)
                    if ok is None:
                        continue
                    del pending[sock]
                    if not ok:
                        conn.close()
                        continue
                    if newest is not None:
                        newest.close()
                    newest = conn
        finally:
            for conn, _ in pending.values():
                conn.close()
        self._conn = newest
        return newest is not None

    @property
    def connected(self) -> bool:
        return self._conn is not None

    def call(self, method: str, *args: Any, timeout_s: float = 60.0) -> Any:
        """One adapter call; records come back as ``(flat float64 array, dropped)``."""
        conn = self._conn
        if conn is None:
            raise ChannelError("the page is not connected")
        try:
            conn.send_text(json.dumps({"m": method, "a": args}, separators=(",", ":")))
            while True:
                reply = conn.receive(timeout_s)
                if not self._keep_push(reply):
                    break
        except (ConnectionError, TimeoutError, OSError) as exc:
            self._drop(conn)
            raise ChannelError(f"the page did not answer {method}: {exc}") from exc
        if isinstance(reply, bytes):
            data = np.frombuffer(reply, dtype=np.float64)
            return data[1:], int(data[0])
        msg = json.loads(reply)
        if "error" in msg:
            raise ChannelError(msg["error"])
        return msg["r"]

    def _keep_push(self, message: bytes | str) -> bool:
        """Keep ``message`` if the page pushed it (a streamed record); True if it did."""
        if isinstance(message, bytes) and len(message) >= 8 and np.frombuffer(message[:8], np.float64)[0] < 0:
            self._pushed.append(np.frombuffer(message, dtype=np.float64)[1:].copy())
            return True
        return False

    def _drop(self, conn: _Connection) -> None:
        conn.close()
        self._conn = None

    def pushed(self, timeout_s: float) -> list[np.ndarray]:
        """The records the page pushed since the last call (flat float64 arrays, one record
        each), waiting up to ``timeout_s`` for the first when there are none yet."""
        conn = self._conn
        if not self._pushed and conn is not None:
            try:
                message = conn.receive(timeout_s)
            except TimeoutError:
                return []
            except (ConnectionError, OSError) as exc:
                self._drop(conn)
                raise ChannelError(f"the page's stream broke: {exc}") from exc
            if not self._keep_push(message):
                raise ChannelError("the page sent a reply that no call asked for")
            while self._has_more(conn):  # whatever else has arrived already, without waiting
                if not self._keep_push(conn.receive(timeout_s)):
                    raise ChannelError("the page sent a reply that no call asked for")
        if conn is None and not self._pushed:
            raise ChannelError("the page is not connected")
        out = list(self._pushed)
        self._pushed.clear()
        return out

    @staticmethod
    def _has_more(conn: _Connection) -> bool:
        return bool(conn.ws_pending() or select.select([conn.sock], [], [], 0)[0])

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._listener.close()
