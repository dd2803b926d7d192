"""A game server on loopback that serves the user's game folder under our host page.

The original shuts its engine down unless the page's host name contains "foddy", so the
page is opened as ``http://foddy.localhost:PORT/`` (Chromium resolves ``*.localhost`` to
loopback by itself) rather than by editing the game.
"""

from __future__ import annotations

import os
import threading
from collections import deque
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
    """Serves the host page, the adapter's helper files and the game's own files on 127.0.0.1.

    Any local process, and any web page through DNS rebinding, can reach a loopback port, so
    the server answers only requests addressed to itself (the ``Host`` header) and only for the
    files it names (an allowlist: the host page, our helpers, the game's files); everything
    else is 404 without looking at the disk, and no request can make it print a traceback."""

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
        self.refused: deque[str] = deque(maxlen=100)  # the latest requests answered 404 or 421, for diagnosis
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt: str, *args: object) -> None:  # quiet
                return

            def do_GET(self) -> None:
                host = (self.headers.get("Host") or "").lower()
                if host not in server._hosts():
                    server.refused.append(f"Host {host!r}: {self.path[:200]}")
                    self.send_error(HTTPStatus.MISDIRECTED_REQUEST)
                    return
                body, ctype = server._resolve(self.path.split("?", 1)[0])
                if body is None:
                    server.refused.append(self.path[:200])
                    self.send_error(HTTPStatus.NOT_FOUND)
                    return
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: object, client_address: object) -> None:
                return  # a client that breaks its own connection is no news

        self._httpd = Server(("127.0.0.1", port), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="qwop-game-server", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{HOST_NAME}:{self.port}/"

    def _hosts(self) -> tuple[str, ...]:
        return tuple(f"{h}:{self.port}" for h in (HOST_NAME, "127.0.0.1", "localhost"))

    def _resolve(self, path: str) -> tuple[bytes | None, str]:
        if path in ("/", "/index.html"):
            return self._host_page, "text/html; charset=utf-8"
        if path in self._helpers:
            return self._helpers[path], "text/javascript; charset=utf-8"
        name = path[len("/assets/") :] if path.startswith("/assets/") else path[1:]
        file = self.files.get(name) if name in GAME_FILES else None  # the game's own, where the user keeps them
        if file is None:
            return None, ""
        try:
            body = file.read_bytes()
        except OSError:
            return None, ""
        return body, "text/javascript; charset=utf-8" if file.suffix == ".js" else "application/octet-stream"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> GameServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
