"""Files written whole, and never over one that exists unasked.

Every file the harness writes (models, checkpoints, replay buffers, demos and traces, saved
searches, GIFs and videos, reports) is written to a temporary file beside it, flushed to disk
and then renamed onto its name, which is atomic on one file system: a reader, a crash, a kill
or Ctrl-C never leaves half a file under its name, only the old file or none.

Files of arrays the harness reads back (openings, labels) carry a ``format`` entry and are
opened with :func:`read_tagged_npz`, which turns a missing, foreign or damaged file into one
line for the user.

Outputs a user names are never overwritten: if the name is taken, the next free number is
used (``best.gif``, then ``best-1.gif``, ``best-2.gif``) and the command says which it wrote
(:func:`write_new`). Files a command keeps up to date by design (a search's own state, a
recording's autosave) are replaced whole (:func:`write_whole`). Output folders are checked
before the work starts (:func:`check_writable`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from sim_env.errors import UserInputError

# A name the harness makes a file or folder of inside a folder it chose (a run, a player): no path
# separators, not . or .., so that it stays inside that folder.
PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._=+,-]{0,127}")


def check_plain_name(name: str, what: str) -> str:
    """``name`` if it is a plain name (:data:`PLAIN_NAME`), else a one-line error naming ``what``."""
    if not PLAIN_NAME.fullmatch(name):
        raise UserInputError(f"{what} must be a plain name (letters, digits, . _ = + , -; no / or ..), got {name!r}")
    return name


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def _temp_beside(path: str | Path) -> Iterator[Path]:
    """An empty temporary file in ``path``'s folder (same file system, so it can be renamed onto
    ``path``; hidden, with ``path``'s suffix for writers that go by it), with an ordinary file's
    permissions; removed at the end unless it was renamed."""
    path = Path(path)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=f".part{path.suffix}")
    os.close(fd)
    os.chmod(name, 0o666 & ~_umask())  # mkstemp makes 0600
    try:
        yield Path(name)
    finally:
        if os.path.exists(name):
            os.unlink(name)


def _fill(tmp: Path, write: Callable[[BinaryIO], object]) -> None:
    """Writes ``tmp`` through ``write(binary file)``."""
    with open(tmp, "wb") as f:
        write(f)


def _sync(tmp: Path) -> None:
    """Flushes ``tmp`` to disk, so that the name it takes never shows a file still in the cache."""
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())


def write_whole(path: str | Path, write: Callable[[BinaryIO], object], *, keep_existing: bool = False) -> Path:
    """Writes ``path`` through ``write(binary file)``, replacing any file of that name at once;
    with ``keep_existing``, raises FileExistsError instead if the name is taken (also if it was
    taken while writing)."""
    path = Path(path)
    with _temp_beside(path) as tmp:
        _fill(tmp, write)
        _sync(tmp)
        if keep_existing:
            os.link(tmp, path)  # unlike a rename, fails if the name exists
        else:
            os.replace(tmp, path)
    return path


def write_text(path: str | Path, text: str) -> Path:
    """A text file (UTF-8), written whole."""
    return write_whole(path, lambda f: f.write(text.encode("utf-8")))


def write_json(path: str | Path, data: Any, **dumps: Any) -> Path:
    """A JSON file (indented by 2 unless ``dumps`` says otherwise), written whole."""
    return write_text(path, json.dumps(data, **{"indent": 2, **dumps}))


def numbered(path: str | Path, n: int) -> Path:
    """``path`` with ``-n`` before its suffix (``.npz``, ``.gif``, ``.qwop.json`` kept whole)."""
    path = Path(path)
    if n == 0:
        return path
    name = path.name
    suffix = "".join(path.suffixes[-2:]) if name.endswith(".qwop.json") else path.suffix
    return path.with_name(f"{name[: len(name) - len(suffix)]}-{n}{suffix}")


def write_new(path: str | Path, write: Callable[[BinaryIO], object]) -> Path:
    """Writes whole under ``path`` or, if that name is taken (also while writing), the first free
    numbered name beside it; returns the path written."""
    return write_new_from_path(path, lambda tmp: _fill(tmp, write))


def write_new_from_path(path: str | Path, produce: Callable[[Path], object]) -> Path:
    """:func:`write_new` for a writer that takes a file name (ffmpeg): ``produce`` writes a
    temporary file of ``path``'s suffix beside it, which then takes the first free name (a hard
    link fails where the name is taken, so no file is replaced)."""
    path = Path(path)
    with _temp_beside(path) as tmp:
        produce(tmp)
        _sync(tmp)
        for n in range(100_000):
            try:
                os.link(tmp, numbered(path, n))
                return numbered(path, n)
            except FileExistsError:
                continue
    raise FileExistsError(f"no free file name next to {path}")


def check_writable(folder: str | Path, what: str) -> None:
    """Raises PermissionError-free one-line trouble early: ``folder`` exists and a file can be
    made in it (tried, not guessed from permission bits, which root ignores)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserInputError(f"the folder of {what} does not exist: {folder}; create it or choose another path")
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".qwop-write-test.")
    except OSError as exc:
        raise UserInputError(
            f"cannot write {what} in {folder} ({exc.strerror or exc}); choose a folder you can write to"
        ) from None
    os.close(fd)
    os.unlink(name)


def check_out_folders(*paths: str | None) -> None:
    """Output files go where the user says, into folders that exist (none is created unasked)
    and can be written; checked before any long work starts."""
    for p in paths:
        if p:
            if Path(p).is_dir():
                raise UserInputError(f"{p} is a folder; give a file name for this output")
            check_writable(Path(p).resolve().parent, p)


def copy_whole(src: str | Path, dst: str | Path) -> Path:
    """Copies ``src`` onto ``dst``, replacing it at once."""
    with open(src, "rb") as f:
        return write_whole(dst, lambda out: shutil.copyfileobj(f, out))


@contextmanager
def read_tagged_npz(path: str | Path, fmt: str, missing: str, damaged: str) -> Iterator[Any]:
    """The open ``.npz`` at ``path`` whose ``format`` entry is ``fmt``. A missing file raises
    ``UserInputError(missing)``; a file of another format, or one that fails to read (in the
    block too: a missing entry, a bad value), ``UserInputError(damaged)``."""
    if not Path(path).is_file():
        raise UserInputError(missing)
    try:
        with np.load(path, allow_pickle=False) as z:
            if "format" not in z.files or str(z["format"]) != fmt:
                raise UserInputError(damaged)
            yield z
    except UserInputError:
        raise
    except (OSError, ValueError, TypeError, KeyError, EOFError, zipfile.BadZipFile, json.JSONDecodeError, RuntimeError):
        raise UserInputError(damaged) from None


__all__ = [
    "PLAIN_NAME",
    "check_out_folders",
    "check_plain_name",
    "check_writable",
    "copy_whole",
    "numbered",
    "read_tagged_npz",
    "write_json",
    "write_new",
    "write_new_from_path",
    "write_text",
    "write_whole",
]
