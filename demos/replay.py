"""``qwop replay FILE``: replay a demo's session and say where it departs from the recording.

- ``--sim``: in the native simulator (``sim_env.replay_session``): the first update where
  the simulator departs from what the original did (a fidelity check on real human play).
- ``--browser [--game DIR]``: in the original in a browser, lock-step, in a fresh page (the
  default game folder unless ``--game``).
- ``--video out.gif`` (or ``.mp4`` with ffmpeg installed): the recorded run drawn frame by frame.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import sim_env
from demos.format import Demo, load_demo
from sim_env.spec import UPDATES_PER_SECOND
from sim_env.traces import Divergence, first_divergence
from sim_env.usage import UserInputError


def replay_sim(demo: Demo) -> tuple[dict[str, np.ndarray], Divergence | None]:
    out = sim_env.replay_session(demo.events, initial_score_time=demo.initial_score_time)
    return out, first_divergence(demo.trace(), out)


def replay_browser(
    demo: Demo, game: str | None = None, backend: str = "playwright"
) -> tuple[dict[str, np.ndarray], Divergence | None]:
    from browser_env.game import BrowserGame

    with BrowserGame(game, backend=backend) as g:
        out = g.replay_session(demo.events, demo.initial_score_time)
        note = g.sincos_note()
    if note:
        print(f"warning: {note}", file=sys.stderr)
    return out, first_divergence(demo.trace(), out)


def write_video(demo: Demo, path: str | Path, fps: int = UPDATES_PER_SECOND, every: int = 2) -> Path:
    """Draw the recorded states (what the original did) to a GIF or an MP4 at the game's pace,
    showing progress while drawing."""
    from tqdm import tqdm

    from sim_env.render import HEIGHT, WIDTH, render_state, save_gif

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise UserInputError(f"the video must end in .gif or .mp4, got {path.name}")
    a = demo.arrays
    rows = range(0, len(a["state"]), every)
    frames = (render_state(a["state"][i]) for i in tqdm(rows, desc=f"drawing {path.name}", unit=" frames"))
    if suffix == ".gif":
        labels = [f"{a['score'][i]:.1f} m   {a['score_time'][i]:.1f} s" for i in rows]
        save_gif(list(frames), str(path), fps=fps / every, labels=labels)
        return path
    try:
        import imageio_ffmpeg
    except ImportError:
        raise UserInputError(
            "writing MP4 needs imageio-ffmpeg: .venv/bin/pip install imageio-ffmpeg (the train extra has it), "
            "or write a .gif"
        ) from None
    writer = imageio_ffmpeg.write_frames(str(path), (WIDTH, HEIGHT), fps=fps / every, macro_block_size=1)
    writer.send(None)  # start ffmpeg
    try:
        for frame in frames:
            writer.send(frame)
    finally:
        writer.close()
    return path


def outcome(run: dict[str, np.ndarray]) -> str:
    """How the run's last episode ended: finish time, fall, or where it stopped."""
    if not len(run["state"]):
        return "no update ran"
    t, score = float(run["score_time"][-1]), float(run["score"][-1])
    how = " (fell over the line)" if run["fallen"][-1] else ""
    if sim_env.finished_100m(run["game_ended"][-1], run["jump_landed"][-1], score):
        return f"finished 100 m in {t:.2f} s{how}"
    if run["jump_landed"][-1]:
        return f"ended the final jump at {score:.1f} m after {t:.2f} s{how}"
    if run["fallen"][-1]:
        return f"fell at {score:.1f} m after {t:.2f} s"
    return f"stopped at {score:.1f} m after {t:.2f} s"


def main_replay(file: str, sim: bool, browser: bool, game: str | None, backend: str, video: str | None) -> int:
    demo = load_demo(file)
    n = len(demo.events)
    status = 0
    if not (sim or browser or video):
        sim = True
    for where, wanted, run in (("simulator", sim, replay_sim), ("browser", browser, None)):
        if not wanted:
            continue
        out, div = run(demo) if run else replay_browser(demo, game, backend)
        same = f"identical to the recording over all {n} events" if div is None else f"departs at event {div}"
        print(f"{where}: {outcome(out)}; {same}")
        status = status or (0 if div is None else 1)
    if video:
        print(f"wrote {write_video(demo, video)}")
    return status
