"""``qwop fetch-game DIR``: download the original game's two files from the game's site.

The game is not ours to redistribute, so the harness never ships or downloads it on its
own; this command is for a user fetching their own copy while online. Files are written
atomically and existing files are kept unless ``--force``.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from browser_env.server import GAME_FILES, SOUND_LIBRARY, find_game_files, resolve_game_folder
from sim_env.files import write_whole

DEFAULT_BASE_URL = "https://www.foddy.net/"


def fetch_game(
    dest: str | Path | None = None, base_url: str = DEFAULT_BASE_URL, force: bool = False, timeout_s: float = 30.0
) -> Path:
    """Download the game's files into ``dest`` (default: the default game folder); returns it."""
    dest = resolve_game_folder(dest)
    dest.mkdir(parents=True, exist_ok=True)
    base = base_url if base_url.endswith("/") else base_url + "/"
    for name in (*GAME_FILES, SOUND_LIBRARY):
        target = dest / name
        if target.exists() and not force:
            continue
        url = base + name
        try:
            with urllib.request.urlopen(url, timeout=timeout_s) as resp:
                data = resp.read()
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ConnectionError(
                f"could not download {url}: {exc}. fetch-game needs to be online; otherwise copy your "
                f"QWOP.min.js and assetbundle.parcel into {dest} by hand"
            ) from exc
        if not data:
            raise ConnectionError(f"{url} returned an empty file")
        write_whole(target, lambda f, data=data: f.write(data))
    find_game_files(dest)
    return dest
