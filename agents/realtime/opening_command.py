"""``qwop opening``: plan an opening offline (``agents.realtime.opening``) with the planner in the
loop, unhurried, and save it, with how it was made in its meta."""

from __future__ import annotations

import hashlib
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from agents.realtime.opening import DEFAULT_CLICK_UPDATE, Opening, plan_opening
from agents.realtime.receding import BeamController
from agents.search.guided_rollouts import guide_from_model
from agents.training.model_files import check_model_file
from sim_env.errors import UserInputError
from sim_env.interrupts import StopRequest
from sim_env.progress import progress_bar


def main_opening(args: Any, default_model: Path, out: Path) -> int:
    """The ``qwop opening`` command (arguments as parsed by ``agents.cli``): plans an opening with
    progress shown and saves it to ``out`` (a new name), also when stopped by Ctrl-C."""
    model = check_model_file(args.model or default_model)
    click = DEFAULT_CLICK_UPDATE if args.click_update is None else args.click_update
    if click < 2:
        raise UserInputError(f"--click-update must be 2 or more (the page runs update 1 before any click), got {click}")
    guide = guide_from_model(str(model))
    stages = {"beam": args.beam, "stages": args.stages, "lead": args.lead, "lookahead": args.lookahead}
    planner = BeamController(guide, **stages, catch_up=max(2, args.stages), sincos=args.sincos)
    bar = progress_bar(total=100, unit=" m", desc="opening", dynamic_ncols=True)
    c0 = time.process_time()

    def progress(game_s: float, metres: float) -> None:
        bar.update(max(0, min(int(metres), bar.total) - bar.n))  # the farthest so far
        bar.set_postfix_str(f"{game_s:.1f} game s", refresh=False)

    try:
        with StopRequest() as stop:
            masks = plan_opening(planner, click, args.sincos, args.time_limit, progress, stop=lambda: stop.requested)
    finally:
        bar.close()
    meta = {
        "command": "qwop " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
        "model": str(model),
        "model_sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
        "planner": stages,
        "cpu_seconds": round(time.process_time() - c0, 1),
        "updates_simulated": planner.updates_simulated,
        "stopped_by": stop.signal_name,
    }
    opening = Opening.from_decisions(click, args.sincos, masks, guide.frame_skip, meta=meta)
    opening.meta.update(opening.outcome())  # the saved meta says where the line leads
    path = None
    if len(masks):
        out.parent.mkdir(parents=True, exist_ok=True)
        path = opening.save(out)
    if stop.requested:
        kept = f"the {len(masks)} decisions made so far saved in {path}" if path else "no decision made yet"
        print(f"interrupted ({stop.signal_name}): {kept}", file=sys.stderr)
    if path is not None:
        print(f"opening: {opening.describe()}; saved {path}")
        print(f"follow it in real time with: qwop play --opening {path}")
    return 130 if stop.requested else 0


__all__ = ["main_opening"]
