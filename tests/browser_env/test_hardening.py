"""Any local process can reach the harness's loopback ports: the game server and the direct
channel. Each attack is played here and the run must go on, identical: the server answers only
requests addressed to it and only for the files it names, never printing a traceback; the
channel drops idle, slow, garbled and wrong-token clients without holding up the page."""

from __future__ import annotations

import http.client
import shutil
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest
import wsproto
from wsproto.events import AcceptConnection, Request, TextMessage

from browser_env.channel import HANDSHAKE_S, DirectChannel
from browser_env.server import HOST_NAME, GameServer
from browser_env.standin import PLANCK, build_standin
from sim_env.spec import REC_WALL_MS

GAIT = np.tile(np.array([9] * 5 + [5] * 9, dtype=np.int8), 10)


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not PLANCK.is_file():
        pytest.skip("needs the stand-in's npm dependency (bash scripts/test.sh installs it)")
    return build_standin(tmp_path_factory.mktemp("standin"))


def _get(port: int, path: str, host: str | None = "default") -> tuple[int, bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
    if host == "default":
        host = f"{HOST_NAME}:{port}"
    if host is not None:
        c.putheader("Host", host)
    c.endheaders()
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def _raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := s.recv(4096):
            out += chunk
    return out


def test_server_serves_only_its_files_to_itself_and_never_a_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    game = build_standin(tmp_path / "game")
    (game / ".secret").write_text("token")
    (game / "notes.txt").write_text("private")
    (tmp_path / "outside.txt").write_text("outside")
    (game / "link.txt").symlink_to(tmp_path / "outside.txt")
    (game / "loop").symlink_to(game / "loop")
    with GameServer(game) as server:
        port = server.port
        assert _get(port, "/")[0] == 200
        assert _get(port, "/QWOP.min.js")[1] == (game / "QWOP.min.js").read_bytes()
        assert _get(port, "/assets/assetbundle.parcel")[0] == 200
        assert _get(port, "/QWOP.min.js", host=f"127.0.0.1:{port}")[0] == 200
        for path in (
            "/.secret",
            "/notes.txt",
            "/link.txt",
            "/loop",
            "/../outside.txt",
            "/%2e%2e/outside.txt",
            "/assets/../.secret",
            "/%00",
            "/QWOP.min.js/..",
            "/" + "a" * 5000,
        ):
            status, body = _get(port, path)
            assert status == 404, path
            assert b"token" not in body and b"private" not in body and b"outside" not in body
        # DNS rebinding: a web page at another name that resolves to loopback.
        assert _get(port, "/", host="evil.example")[0] == 421
        assert _get(port, "/", host=f"evil.example:{port}")[0] == 421
        assert _get(port, "/", host=None)[0] == 421
        host = f"Host: {HOST_NAME}:{port}\r\n".encode()
        assert _raw(port, b"GET /\x00 HTTP/1.1\r\n" + host + b"\r\n").split(b"\r\n")[0].endswith(b"404 Not Found")
        assert b"Error code: 400" in _raw(port, b"\x00\xff garbage\r\n\r\n")  # answered as HTTP/0.9
        assert _raw(port, b"GET /" + b"x" * 70000 + b" HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.0 414")
        with socket.create_connection(("127.0.0.1", port)) as s:  # a client that breaks off mid-request
            s.sendall(b"GET / HTTP/1.1\r\nHost: ")
        assert _get(port, "/")[0] == 200  # still serving
        assert len(server.refused) >= 10
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err


class _Client:
    """A WebSocket client on the channel's port, as the adapter's page would be."""

    def __init__(self, url: str) -> None:
        u = urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=10)
        self.ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        self.sock.sendall(self.ws.send(Request(host=f"{u.hostname}:{u.port}", target=u.path)))
        self.accepted = False

    def serve_one_call(self, answer: str) -> str:
        """Wait for the accept and one call; answer it."""
        while True:
            data = self.sock.recv(65536)
            assert data, "the channel closed the connection"
            self.ws.receive_data(data)
            for ev in self.ws.events():
                if isinstance(ev, AcceptConnection):
                    self.accepted = True
                elif isinstance(ev, TextMessage):
                    self.sock.sendall(self.ws.send(TextMessage(data=answer)))
                    return ev.data


def _attackers(port: int, stop: threading.Event) -> list[socket.socket]:
    """Six idle clients, garbage bytes, a half request, a wrong token, and a client sending one
    byte every half second (it would hold a per-read timeout forever)."""
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(6)]
    g = socket.create_connection(("127.0.0.1", port))
    g.sendall(b"\x16\x03\x01 not a websocket\r\n\r\n")
    socks.append(g)
    h = socket.create_connection(("127.0.0.1", port))
    h.sendall(b"GET /")
    socks.append(h)
    w = socket.create_connection(("127.0.0.1", port))
    ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
    w.sendall(ws.send(Request(host="127.0.0.1", target="/" + "0" * 32)))
    socks.append(w)
    d = socket.create_connection(("127.0.0.1", port))
    socks.append(d)

    def drip() -> None:
        for b in b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n" * 10:
            if stop.wait(0.5):
                return
            try:
                d.sendall(bytes([b]))
            except OSError:
                return

    threading.Thread(target=drip, daemon=True).start()
    return socks


def test_channel_takes_the_page_whatever_else_connects_first() -> None:
    ch = DirectChannel()
    port = int(urlparse(ch.url).port)
    stop = threading.Event()
    socks = _attackers(port, stop)
    time.sleep(0.2)
    page = _Client(ch.url)
    answers: list[str] = []
    t = threading.Thread(target=lambda: answers.append(page.serve_one_call('{"r": 42}')), daemon=True)
    t.start()
    t0 = time.monotonic()
    try:
        assert ch.wait_connected(10.0)
        took = time.monotonic() - t0
        assert ch.call("ping", timeout_s=10.0) == 42
        t.join(10)
        assert answers and '"m":"ping"' in answers[0]
        # Ten bad clients cost at most one handshake allowance, not one each (6 idle ones used
        # to cost 5 s apiece), and the page's connection is taken.
        assert took < HANDSHAKE_S + 1.0, took
    finally:
        stop.set()
        for s in socks:
            s.close()
        ch.close()


def test_channel_with_only_bad_clients_gives_up_at_its_deadline() -> None:
    ch = DirectChannel()
    stop = threading.Event()
    socks = _attackers(int(urlparse(ch.url).port), stop)
    t0 = time.monotonic()
    try:
        assert not ch.wait_connected(1.0)
        assert time.monotonic() - t0 < 1.0 + 0.5
    finally:
        stop.set()
        for s in socks:
            s.close()
        ch.close()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian chromium (bash scripts/test.sh installs it)")
def test_a_run_under_attack_is_identical(standin: Path, capfd: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("playwright")
    from browser_env.game import BrowserGame

    with BrowserGame(standin) as g:
        g.new_page()
        quiet = g.run(GAIT).copy()
    with BrowserGame(standin) as g:
        assert g._channel is not None
        port = int(urlparse(g._channel.url).port)
        stop = threading.Event()
        socks = _attackers(port, stop)
        server_port = g._server.port
        try:
            g.new_page()
            assert g._channel.connected  # the page's own connection was taken
            for path in ("/.secret", "/%00", "/../../etc/passwd"):
                assert _get(server_port, path)[0] == 404
            assert _get(server_port, "/", host="evil.example")[0] == 421
            more = _attackers(port, stop)  # clients connecting mid-run are never read
            attacked = g.run(GAIT).copy()
            socks += more
        finally:
            stop.set()
            for s in socks:
                s.close()
    exact = [c for c in range(quiet.shape[1]) if c != REC_WALL_MS]  # all but the wall clock
    assert attacked[:, exact].tobytes() == quiet[:, exact].tobytes()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err


def test_polling_the_stream_with_no_wait_is_no_record_not_a_broken_stream() -> None:
    # A timeout of 0 makes the socket non-blocking; nothing to read then is a poll's empty answer.
    import socket

    from browser_env.channel import _Connection

    listener = socket.create_server(("127.0.0.1", 0))
    page = socket.create_connection(listener.getsockname())
    mine, _ = listener.accept()
    listener.close()
    try:
        ch = DirectChannel()
        ch._conn = _Connection(mine)
        assert ch.pushed(0.0) == [] and ch.pushed(0.01) == []
        with pytest.raises(TimeoutError):
            ch._conn.receive(0.0)
    finally:
        mine.close()
        page.close()
