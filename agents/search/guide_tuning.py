"""A guide tuned on the guided search's own choices: one round of expert iteration.

The guided search (``GuidedSearch``) picks, for every game it keeps, the action whose rollout
went best: a one-step improvement of its guide. This module runs the search for a budget of
CPU time, records every kept game's body state with the action the search ranked first
(``GuidedSearch.labels``), and trains the guide's own network on them by behaviour cloning
(``agents.methods.imitation.pretrain_bc``): the new guide acts, greedily, as the search
chose. Guided by it, a search starts from a better policy.

    python -m agents.search.guide_tuning --minutes 10 --out runs/guide/tuned.zip
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from agents.search.planner import GUIDED_BEAM, GuidedSearch, LocalExpander
from agents.search.state import PlannerConfig, new_state
from sim_env.errors import UserInputError
from sim_env.observation import observe


def collect(
    guide: str, cpu_minutes: float, seed: int = 0, threads: int | None = None, progress: bool = True
) -> tuple[np.ndarray, np.ndarray, float]:
    """Observations and the search's chosen actions over ``cpu_minutes`` of guided search;
    also the best finish it found (inf if none)."""
    from tqdm import tqdm

    planner = GuidedSearch(new_state(PlannerConfig(guide=guide, beam=GUIDED_BEAM, seed=seed)), LocalExpander(threads))
    planner.labels = []
    t0 = time.process_time()
    budget = cpu_minutes * 60
    with tqdm(total=round(budget), unit=" CPU-s", desc="search", disable=not progress, dynamic_ncols=True) as bar:
        while (spent := time.process_time() - t0) < budget:
            planner.step()
            bar.update(min(round(spent), bar.total) - bar.n)
            bar.set_postfix_str(f"best {planner.state.best_time_s:.2f} s", refresh=False)
    states = np.concatenate([s for s, _ in planner.labels])
    actions = np.concatenate([a for _, a in planner.labels])
    return observe(states), actions.astype(np.int64), planner.state.best_time_s


def main(argv: list[str] | None = None) -> int:
    from agents.methods.imitation import pretrain_bc
    from agents.shipped import PRETRAINED
    from agents.training.model_files import check_model_file, load_model, model_sidecar
    from demos.convert import DemoDataset

    ap = argparse.ArgumentParser(prog="python -m agents.search.guide_tuning", description=__doc__.split("\n\n")[0])
    ap.add_argument("--guide", default=str(PRETRAINED), help="the guide to start from (default: the shipped model)")
    ap.add_argument("--minutes", type=float, default=10.0, help="CPU-minutes of search to learn from")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--learning-rate", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True, help="the tuned model (.zip); its .qwop.json is written beside it")
    args = ap.parse_args(argv)
    out = Path(args.out)
    try:
        guide = check_model_file(args.guide)
        if out.exists():
            raise UserInputError(f"{out} exists; choose another --out (nothing is overwritten)")
        obs, actions, best = collect(str(guide), args.minutes, seed=args.seed)
        print(f"{len(actions):,} states labelled by the search (its best finish: {best:.2f} s)")
        model, info = load_model(guide)
        n = len(actions)
        empty = np.zeros(n, dtype=np.float32)
        data = DemoDataset(
            obs,
            actions,
            empty,
            obs,
            empty.astype(bool),
            empty + 1,
            np.zeros(n, np.int64),
            0,
            info["env"]["action_set"],
            int(info["env"]["frame_skip"]),
        )
        losses = pretrain_bc(model, data, epochs=args.epochs, learning_rate=args.learning_rate, seed=args.seed)
        print("behaviour cloning loss by epoch: " + ", ".join(f"{x:.3f}" for x in losses))
        out.parent.mkdir(parents=True, exist_ok=True)
        model.save(str(out))
        side = json.loads(model_sidecar(guide).read_text())
        side["tuned_on_search"] = {"guide": str(guide), "cpu_minutes": args.minutes, "states": n, "seed": args.seed}
        model_sidecar(out).write_text(json.dumps(side, indent=2))
        print(f"saved {out} (guide a search with it: qwop search --guide {out})")
    except UserInputError as exc:
        print(f"error: {exc}")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
