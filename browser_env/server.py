"""A game server on loopback that serves the user's game folder under our host page.

The original shuts its engine down unless the page's host name contains "foddy", so the
page is opened as ``http://foddy.localhost:PORT/`` (Chromium resolves ``*.localhost`` to
loopback by itself) rather than by editing the game.
"""

from __future__ import annotations

import mimetypes
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from adapter_js import read as read_adapter_file

GAME_FILES = ("QWOP.min.js", "assetbundle.parcel")
HOST_NAME = "foddy.localhost"


class GameFolderError(FileNotFoundError):
    """The game folder is missing or lacks a file."""


def find_game_files(folder: str | Path) -> dict[str, Path]:
    """Locate QWOP.min.js and assetbundle.parcel at the top of ``folder`` or under assets/."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise GameFolderError(
            f"game folder not found: {root}. Bring your copy of the original game (QWOP.min.js and "
            f"assetbundle.parcel), or download it when online with: qwop fetch-game {root}"
        )
    found: dict[str, Path] = {}
    for name in GAME_FILES:
        for candidate in (root / name, root / "assets" / name):
            if candidate.is_file():
                found[name] = candidate
                break
    missing = [n for n in GAME_FILES if n not in found]
    if missing:
        present = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())[:20]
        raise GameFolderError(
            f"game folder {root} is missing {', '.join(missing)} (looked at the top and under assets/); "
            f"it contains: {present or 'nothing'}. Get the files with: qwop fetch-game {root}"
        )
    return found


class GameServer:
    """Serves the host page, the adapter's helper files and the game folder on 127.0.0.1."""

    def __init__(self, folder: str | Path, port: int = 0) -> None:
        self.files = find_game_files(folder)
        self.folder = Path(folder).expanduser().resolve()
        self._host_page = read_adapter_file("host.html").encode()
        self._helpers = {"/__qwop__/howl_silent.js": read_adapter_file("howl_silent.js").encode()}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt: str, *args: object) -> None:  # quiet
                return

            def do_GET(self) -> None:
                body, ctype = server._resolve(self.path.split("?", 1)[0])
                if body is None:
                    self.send_error(HTTPStatus.NOT_FOUND)
                    return
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="qwop-game-server", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{HOST_NAME}:{self.port}/"

    def _resolve(self, path: str) -> tuple[bytes | None, str]:
        if path in ("/", "/index.html"):
            return self._host_page, "text/html; charset=utf-8"
        if path in self._helpers:
            return self._helpers[path], "text/javascript; charset=utf-8"
        rel = path.lstrip("/")
        if rel.startswith("assets/"):
            rel = rel[len("assets/") :]
        if rel in self.files:
            p = self.files[rel]
        else:
            # Other files the game may load, from its folder (never outside it).
            p = (self.folder / rel).resolve()
            if self.folder not in p.parents or not p.is_file():
                p = (self.folder / "assets" / rel).resolve()
                if self.folder not in p.parents or not p.is_file():
                    return None, ""
        ctype = mimetypes.guess_type(p.name)[0] or "application/octet-stream"
        if p.suffix == ".js":
            ctype = "text/javascript; charset=utf-8"
        return p.read_bytes(), ctype

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> GameServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
