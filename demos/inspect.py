"""``qwop demos list|info|validate``: what is in demo files, and what is wrong with damaged ones."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import sim_env
from demos.format import CLICK_EVENT, DemoFormatError, load_demo
from sim_env.spec import UPDATES_PER_SECOND


def summary(path: str | Path) -> dict:
    demo = load_demo(path)
    a = demo.arrays
    episodes = []
    for k in range(demo.num_episodes):
        rows = demo.episode_rows(k)
        ev = a["events"][rows]
        keys = a["keys"][rows]
        updates = int((ev != CLICK_EVENT).sum())
        seconds = updates / UPDATES_PER_SECOND
        presses = int((np.diff(keys[keys >= 0]) != 0).sum())
        ended = a["game_ended"][rows]
        end = int(np.argmax(ended)) if ended.any() else len(ended) - 1
        finished = bool(sim_env.finished_100m(ended[end], a["jump_landed"][rows][end], a["score"][rows][end]))
        episodes.append(
            {
                "updates": updates,
                "distance_m": float(a["score"][rows][end]),
                "time_s": float(a["score_time"][rows][end]),
                "keys_per_s": presses / seconds if seconds else 0.0,
                "fell": bool(a["fallen"][rows][end]) and not finished,
                "finished": finished,
                "partial": bool(a["episode_partial"][k]),
            }
        )
    return {"path": str(path), "events": len(a["events"]), "episodes": episodes, "meta": demo.meta}


def main_demos(action: str, files: list[str]) -> int:
    paths: list[Path] = []
    for f in files:
        p = Path(f)
        paths += sorted(p.glob("*.npz")) if p.is_dir() else [p]
    if not paths:
        print("no demo files given or found")
        return 2
    status = 0
    for p in paths:
        try:
            s = summary(p)
        except (DemoFormatError, FileNotFoundError) as exc:
            if action != "validate":  # info and list need readable files: a user error
                print(f"error: {exc}", file=sys.stderr)
                return 2
            print(f"{p}: INVALID: {exc}")
            status = 1
            continue
        if action == "validate":
            print(f"{p}: ok ({s['events']} events, {len(s['episodes'])} episodes)")
        elif action == "list":
            best = max((e["distance_m"] for e in s["episodes"]), default=0.0)
            print(f"{p}: {len(s['episodes'])} episodes, best {best:.1f} m, player {s['meta'].get('player', '?')}")
        else:
            m = s["meta"]
            print(
                f"{p}: {s['events']} events; player {m.get('player')}, recorded {m.get('date')}, "
                f"adapter {m.get('adapter_version')}"
            )
            for i, e in enumerate(s["episodes"]):
                how = "finished" if e["finished"] else ("fell" if e["fell"] else "running")
                print(
                    f"  episode {i}: {e['distance_m']:.1f} m in {e['time_s']:.1f} s, {how}, "
                    f"{e['keys_per_s']:.1f} key changes/s{' (partial)' if e['partial'] else ''}"
                )
    return status
