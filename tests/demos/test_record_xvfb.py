"""``qwop record`` as a person uses it: a visible browser on a (virtual) screen, played with
operating-system key and mouse events (xdotool through the X server, as a keyboard sends
them), stopped with Ctrl-C. On the stand-in always; on the original when it is present
(then the recording must also replay bit for bit in the simulator)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("playwright")

from browser_env.errors import GameFolderError
from browser_env.server import find_game_files
from browser_env.standin import PLANCK, build_standin
from demos.format import CLICK_EVENT, load_demo

NEEDS = [shutil.which(x) for x in ("Xvfb", "xdotool", "chromium")]
if not all(NEEDS) or not PLANCK.is_file():
    pytest.skip("needs Xvfb, xdotool and chromium (bash scripts/test.sh installs them)", allow_module_level=True)

VIEWPORT_H = 500  # the recorder's browser viewport (browser_env.drivers)


@pytest.fixture()
def display() -> str:
    for n in range(90, 140):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            break
    proc = subprocess.Popen(
        ["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not Path(f"/tmp/.X11-unix/X{n}").exists():
        assert time.monotonic() < deadline, "Xvfb did not start"
        time.sleep(0.05)
    yield f":{n}"
    proc.terminate()
    proc.wait(10)


def _xdo(disp: str, *args: str) -> str:
    out = subprocess.run(
        ["xdotool", *args], env={**os.environ, "DISPLAY": disp}, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def _record_with_a_keyboard(game: Path, out: Path, disp: str, stop: int = signal.SIGINT) -> Path:
    env = {**os.environ, "DISPLAY": disp, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "record", "--game", str(game), "--out", str(out), "--player", "xdo"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as from a terminal: a child inherits an ignored SIGINT (Python then never
        # raises KeyboardInterrupt), and a library earlier in the test process may ignore it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout is not None
        lines = []
        deadline = time.monotonic() + 60
        while not any(line.startswith("Ready") for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, (lines, proc.stderr and proc.stderr.read())
            lines.append(proc.stdout.readline())
        win = _xdo(disp, "search", "--sync", "--onlyvisible", "--name", "QWOP").split()[0]
        geo = dict(line.strip().split(": ", 1) for line in _xdo(disp, "getwindowgeometry", win).splitlines()[1:])
        x, y = (int(v) for v in geo["Position"].split(" ")[0].split(","))
        _w, h = (int(v) for v in geo["Geometry"].split("x"))
        top = y + h - VIEWPORT_H  # the page's viewport fills the bottom of the window
        time.sleep(0.5)  # a person looks at the intro screen first
        _xdo(disp, "mousemove", str(x + 320), str(top + 200), "click", "1")
        time.sleep(0.4)
        for down, up, hold in (("q p", "", 0.6), ("", "q", 0.0), ("o", "", 0.6), ("", "o p", 0.3)):
            for k in down.split():
                _xdo(disp, "keydown", k)
            for k in up.split():
                _xdo(disp, "keyup", k)
            time.sleep(hold)
        _xdo(disp, "key", "r")
        time.sleep(0.4)
        _xdo(disp, "keydown", "w")
        _xdo(disp, "keydown", "o")
        time.sleep(0.6)
        _xdo(disp, "keyup", "w")
        _xdo(disp, "keyup", "o")
        time.sleep(0.5)
        proc.send_signal(stop)  # Ctrl-C (or SIGTERM, taken as Ctrl-C): stop and save
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    saved = [line for line in stdout.splitlines() if line.startswith("saved")]
    assert saved, stdout
    return Path(saved[0].split(" to ", 1)[1].strip())


def _check(path: Path) -> None:
    demo = load_demo(path)
    a = demo.arrays
    ev = a["events"]
    assert (ev == CLICK_EVENT).sum() == 1  # the mouse click began the game
    assert ((ev >= 16) & (ev < 32)).sum() == 1  # R was released once
    keys = set(a["keys"][ev != CLICK_EVENT].tolist())
    assert {9, 12, 6} <= keys, keys  # Q+P, then O+P (Q let go), then W+O after the reset
    assert demo.num_episodes == 2


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_record_standin_with_os_key_events(tmp_path: Path, display: str, stop: int) -> None:
    game = build_standin(tmp_path / "standin")
    path = _record_with_a_keyboard(game, tmp_path / "rec" / "xdo.npz", display, stop)
    _check(path)


@pytest.mark.original
def test_record_original_with_os_key_events(tmp_path: Path, display: str) -> None:
    try:
        files = find_game_files()
    except GameFolderError as exc:
        pytest.skip(f"no copy of the original: {exc}")
    from demos.replay import replay_sim

    path = _record_with_a_keyboard(files["QWOP.min.js"].parent, tmp_path / "rec" / "xdo.npz", display)
    _check(path)
    _, div = replay_sim(load_demo(path))
    assert div is None, f"the simulator departs from the keyboard recording: {div}"
