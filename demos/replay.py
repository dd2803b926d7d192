"""``qwop replay FILE``: replay a demo's session and say where it departs from the recording.

- ``--sim``: in the native simulator (``sim_env.replay_session``): the first update where
  the simulator departs from what the original did (a fidelity check on real human play).
- ``--browser --game DIR``: in the browser, lock-step, in a fresh page.
- ``--video out.gif`` (or ``.mp4`` with ffmpeg installed): the recorded run drawn frame by frame.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

import sim_env
from demos.format import Demo, load_demo
from sim_env.traces import Divergence, first_divergence


def replay_sim(demo: Demo) -> tuple[dict[str, np.ndarray], Divergence | None]:
    out = sim_env.replay_session(demo.events)
    return out, first_divergence(demo.trace(), out)


def replay_browser(
    demo: Demo, game: str, backend: str = "playwright"
) -> tuple[dict[str, np.ndarray], Divergence | None]:
    from browser_env.game import BrowserGame

    with BrowserGame(game, backend=backend) as g:
        out = g.replay_session(demo.events)
    return out, first_divergence(demo.trace(), out)


def write_video(demo: Demo, path: str | Path, fps: int = 30, every: int = 2) -> Path:
    """Draw the recorded states (what the original did) to a GIF, or an MP4 with ffmpeg."""
    from sim_env.render import HEIGHT, WIDTH, render_state, save_gif

    path = Path(path)
    states = demo.arrays["state"][::every]
    if path.suffix.lower() == ".gif":
        a = demo.arrays
        labels = [
            f"{sc:.1f} m   {t:.1f} s" for sc, t in zip(a["score"][::every], a["score_time"][::every], strict=True)
        ]
        save_gif([render_state(s) for s in states], str(path), fps=max(1, fps // every), labels=labels)
        return path
    if path.suffix.lower() == ".mp4":
        ffmpeg = shutil.which("ffmpeg")
        if ffmpeg is None:
            raise RuntimeError("writing MP4 needs ffmpeg: apt-get install -y ffmpeg (or write a .gif)")
        cmd = [
            ffmpeg,
            "-y",
            "-loglevel",
            "error",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "-s",
            f"{WIDTH}x{HEIGHT}",
            "-r",
            str(max(1, fps // every)),
            "-i",
            "-",
            "-pix_fmt",
            "yuv420p",
            str(path),
        ]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
        assert proc.stdin is not None
        for s in states:
            proc.stdin.write(render_state(s).tobytes())
        proc.stdin.close()
        if proc.wait() != 0:
            raise RuntimeError(f"ffmpeg failed writing {path}")
        return path
    raise ValueError(f"video must end in .gif or .mp4, got {path.name}")


def main_replay(file: str, sim: bool, browser: bool, game: str | None, backend: str, video: str | None) -> int:
    demo = load_demo(file)
    n = len(demo.events)
    status = 0
    if not (sim or browser or video):
        sim = True
    if sim:
        _, div = replay_sim(demo)
        if div is None:
            print(f"simulator: identical to the recording over all {n} events")
        else:
            print(f"simulator: departs from the recording at event {div}")
            status = 1
    if browser:
        if not game:
            print("error: --browser needs --game DIR")
            return 2
        _, div = replay_browser(demo, game, backend)
        print(
            f"browser: identical to the recording over all {n} events"
            if div is None
            else f"browser: departs from the recording at event {div}"
        )
        status = status or (0 if div is None else 1)
    if video:
        print(f"wrote {write_video(demo, video)}")
    return status
