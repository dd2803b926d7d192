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


_SAVER = """
import sys, time
import numpy as np
from pathlib import Path
from sim_env.files import write_new, write_whole

kind, path = sys.argv[1], Path(sys.argv[2])
big = np.random.default_rng(0).integers(0, 255, 40_000_000, dtype=np.uint8)

def slow(f):
    for i in range(0, len(big), 1_000_000):
        f.write(big[i:i + 1_000_000].tobytes())
        f.flush()
        if i == 0:
            print("writing", flush=True)
        time.sleep(0.01)

if kind == "model":  # a model as qwop train saves it
    from agents.training.model_files import save_model  # noqa: F401 (saves through write_whole)
    write_whole(path, slow)
else:
    write_new(path, slow)
"""


@pytest.mark.parametrize("kind", ["model", "gif"])
def test_sigkill_mid_save_leaves_the_old_file_or_none(tmp_path: Path, kind: str) -> None:
    """Killed (SIGKILL, nothing runs after it) while writing: the old file whole, or no file,
    never a part of one under its name."""
    import signal
    import subprocess
    import sys

    path = tmp_path / ("final.zip" if kind == "model" else "best.gif")
    if kind == "model":
        path.write_bytes(b"old model")
    p = subprocess.Popen([sys.executable, "-c", _SAVER, kind, str(path)], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "writing"
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL
    names = sorted(f.name for f in tmp_path.iterdir() if not f.name.startswith("."))
    if kind == "model":
        assert names == ["final.zip"] and path.read_bytes() == b"old model"
    else:
        assert names == [], names  # nothing under the output's name; the hidden .part is all that is left


def test_an_output_whose_name_is_taken_gets_the_next_number(tmp_path: Path) -> None:
    """The rule for every output a user names (GIFs, videos, traces, demos): never overwritten."""
    import numpy as np

    from sim_env.files import write_new
    from sim_env.render import save_gif

    frames = [np.zeros((8, 8, 3), dtype=np.uint8), np.full((8, 8, 3), 255, dtype=np.uint8)]
    first = save_gif(frames, str(tmp_path / "best.gif"))
    before = first.read_bytes()
    second = save_gif(frames[::-1], str(tmp_path / "best.gif"))
    assert (first.name, second.name) == ("best.gif", "best-1.gif") and first.read_bytes() == before
    assert write_new(tmp_path / "m.qwop.json", lambda f: f.write(b"{}")).name == "m.qwop.json"
    assert write_new(tmp_path / "m.qwop.json", lambda f: f.write(b"{}")).name == "m-1.qwop.json"
