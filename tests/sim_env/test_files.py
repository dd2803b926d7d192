"""Files written whole: the old file stays intact until the new one is complete, and no
temporary file is left behind, whatever happens while writing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sim_env.files import copy_whole, write_whole


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "best.json"
    path.write_text("old")

    def half_then_fail(f) -> None:
        f.write(b"ne")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_whole(path, half_then_fail)
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["best.json"]
    write_whole(path, lambda f: f.write(b"new"))
    assert path.read_text() == "new" and os.listdir(tmp_path) == ["best.json"]


def test_keep_existing_never_replaces(tmp_path: Path) -> None:
    path = tmp_path / "run.npz"
    write_whole(path, lambda f: f.write(b"first"), keep_existing=True)
    with pytest.raises(FileExistsError):
        write_whole(path, lambda f: f.write(b"second"), keep_existing=True)
    assert path.read_bytes() == b"first" and os.listdir(tmp_path) == ["run.npz"]


def test_ordinary_permissions_and_copies(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_whole(tmp_path / "a", lambda f: f.write(b"x" * 100_000))
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644  # not the 0600 of a temporary file
    copy_whole(path, tmp_path / "b")
    assert (tmp_path / "b").read_bytes() == b"x" * 100_000 and sorted(os.listdir(tmp_path)) == ["a", "b"]
