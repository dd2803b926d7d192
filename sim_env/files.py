"""Files written whole: a reader, a crash or Ctrl-C never leaves half a file under its name.

Every file the harness writes for keeps (demos, saved searches, kept models and their verdicts,
game files) is written to a temporary file beside it and then renamed onto its name, which is
atomic on one file system.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def _temp_beside(path: str | Path) -> Iterator[Path]:
    """An empty temporary file in ``path``'s folder (same file system, so it can be renamed onto
    ``path``), with an ordinary file's permissions; removed at the end unless it was renamed."""
    path = Path(path)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(fd)
    os.chmod(name, 0o666 & ~_umask())  # mkstemp makes 0600
    try:
        yield Path(name)
    finally:
        if os.path.exists(name):
            os.unlink(name)


def write_whole(path: str | Path, write: Callable[[BinaryIO], object], *, keep_existing: bool = False) -> Path:
    """Writes ``path`` through ``write(binary file)``, replacing any file of that name at once;
    with ``keep_existing``, raises FileExistsError instead if the name is taken (also if it was
    taken while writing)."""
    path = Path(path)
    with _temp_beside(path) as tmp:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        if keep_existing:
            os.link(tmp, path)  # unlike a rename, fails if the name exists
        else:
            os.replace(tmp, path)
    return path


def copy_whole(src: str | Path, dst: str | Path) -> Path:
    """Copies ``src`` onto ``dst``, replacing it at once."""
    with open(src, "rb") as f:
        return write_whole(dst, lambda out: shutil.copyfileobj(f, out))


__all__ = ["copy_whole", "write_whole"]
