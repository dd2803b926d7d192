"""A game server on loopback that serves the user's game folder under our host page.

The original shuts its engine down unless the page's host name contains "foddy", so the
page is opened as ``http://foddy.localhost:PORT/`` (Chromium resolves ``*.localhost`` to
loopback by itself) rather than by editing the game.
"""

from __future__ import annotations

import mimetypes
import os
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from adapter_js import read as read_adapter_file
from browser_env.errors import GameFolderError

GAME_FILES = ("QWOP.min.js", "assetbundle.parcel")
# Served from the user's folder when present, as the original's own page loads it (muted).
SOUND_LIBRARY = "howler.js"
HOST_NAME = "foddy.localhost"
GAME_ENV_VAR = "QWOP_GAME"


def default_game_folder() -> Path:
    """Where the game is looked for when no ``--game`` is given, and where ``qwop fetch-game``
    writes: ``$QWOP_GAME``, else ``$XDG_DATA_HOME/qwop/game`` (``~/.local/share/qwop/game``)."""
    if os.environ.get(GAME_ENV_VAR):
        return Path(os.environ[GAME_ENV_VAR]).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser() / "qwop" / "game"


def resolve_game_folder(game: str | Path | None) -> Path:
    """``game``, or the default game folder when it is None or empty."""
    return Path(game).expanduser() if game else default_game_folder()


def _how_to_get(root: Path) -> str:
    where = "" if root == default_game_folder() else f" {root}"
    return (
        f"copy your QWOP.min.js, assetbundle.parcel and howler.js into {root}, or download them when online "
        f"with: qwop fetch-game{where}"
    )


def find_game_files(folder: str | Path | None = None) -> dict[str, Path]:
    """Locate QWOP.min.js and assetbundle.parcel (and howler.js, optional) at the top of
    ``folder`` or under assets/; ``folder`` defaults to :func:`default_game_folder`."""
    root = resolve_game_folder(folder)
    default = " (the default game folder; --game or $QWOP_GAME choose another)" if folder in (None, "") else ""
    if not root.is_dir():
        raise GameFolderError(f"no game folder at {root}{default}: {_how_to_get(root)}")
    found: dict[str, Path] = {}
    for name in (*GAME_FILES, SOUND_LIBRARY):
        for candidate in (root / name, root / "assets" / name):
            if candidate.is_file():
                found[name] = candidate
                break
    missing = [n for n in GAME_FILES if n not in found]
    if missing:
        present = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())[:20]
        raise GameFolderError(
            f"game folder {root}{default} is missing {', '.join(missing)} (looked at the top and under assets/; "
            f"it holds {present or 'nothing'}): {_how_to_get(root)}"
        )
    return found


class GameServer:
    """Serves the host page, the adapter's helper files and the game folder on 127.0.0.1."""

    def __init__(self, folder: str | Path | None = None, port: int = 0) -> None:
        self.files = find_game_files(folder)
        self.folder = resolve_game_folder(folder).resolve()
        self._host_page = read_adapter_file("host.html").encode()
        sound = self.files.get(SOUND_LIBRARY)
        self.sound_library = str(sound) if sound else "silent stand-in (no howler.js in the game folder)"
        self._helpers = {
            "/__qwop__/howler.js": sound.read_bytes() if sound else read_adapter_file("howl_silent.js").encode(),
            "/__qwop__/mute.js": read_adapter_file("mute.js").encode(),
        }
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
