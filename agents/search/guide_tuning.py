"""A guide tuned on the guided search's own choices: rounds of expert iteration.

The guided search (``GuidedSearch``) picks, for every game it keeps, the action whose rollout
went best: a one-step improvement of its guide. A round runs the search for a budget of
updates, records every kept game's body state with the action the search ranked first
(``GuidedSearch.labels``), and trains the guide's own network on them by behaviour cloning
(``agents.methods.imitation.pretrain_bc``): the new guide acts, greedily, as the search
chose. The next round searches with the new guide, and so on (expert iteration, as in
ExIt and AlphaZero, with rollouts in place of a tree). Every round is deterministic: a budget
in updates, a seeded shuffle, one torch thread.

    qwop tune-guide --out runs/guide      # two rounds; then: qwop search --guide runs/guide/round2.zip
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.methods.imitation import pretrain_bc
from agents.search.guided_rollouts import guide_from_model
from agents.search.planner import GuidedSearch, LocalExpander
from agents.search.state import PlannerConfig, guided_config, new_state, with_settings
from agents.training.model_files import load_model, model_sidecar
from demos.convert import DemoDataset
from sim_env.errors import UserInputError
from sim_env.files import write_json, write_whole
from sim_env.observation import observe


def search_config(guide: str, seed: int = 0, settings: Sequence[str] = ()) -> PlannerConfig:
    """A round's search: by default the one the shipped guide was tuned on (every kept game's
    tries may fill the beam of 8, one beam throughout, the guide's decisions as tries), with
    ``NAME=VALUE`` settings on top (``per_parent=2 refine_beam=128 fine_after=50000000
    fine_try_updates=2`` is the search ``qwop search --guide`` runs now)."""
    return with_settings(guided_config(guide, seed=seed, per_parent=0, refine_beam=0, fine_after=0), list(settings))


def collect(
    guide: str,
    updates: int,
    seed: int = 0,
    threads: int | None = None,
    progress: bool = True,
    settings: Sequence[str] = (),
) -> tuple[np.ndarray, np.ndarray, float]:
    """Observations and the search's chosen actions over ``updates`` updates of guided
    search (:func:`search_config`); also the best finish it found (inf if none)."""
    from tqdm import tqdm

    cfg = search_config(guide, seed, settings)
    planner = GuidedSearch(new_state(cfg), LocalExpander(threads))
    planner.labels = []
    st = planner.state
    with tqdm(total=updates, unit=" updates", unit_scale=True, desc="search", disable=not progress) as bar:
        while st.updates < updates:
            planner.step()
            bar.update(min(st.updates, updates) - bar.n)
            bar.set_postfix_str(f"best {st.best_time_s:.2f} s", refresh=False)
    states = np.concatenate([s for s, _ in planner.labels])
    actions = np.concatenate([a for _, a in planner.labels])
    return observe(states), actions.astype(np.int64), st.best_time_s


def tune(
    guide: Path,
    obs: np.ndarray,
    actions: np.ndarray,
    out: Path,
    epochs: int,
    learning_rate: float,
    seed: int,
    provenance: dict,
) -> list[float]:
    """Behaviour cloning of ``guide`` on the labels, saved as ``out`` with its sidecar."""
    import torch

    torch.set_num_threads(1)  # the same sums on any machine
    torch.manual_seed(seed)
    model, info = load_model(guide)
    n = len(actions)
    zeros = np.zeros(n, dtype=np.float32)
    data = DemoDataset(
        obs=obs,
        actions=actions,
        rewards=zeros,
        next_obs=obs,
        dones=zeros.astype(bool),
        behaviour_prob=zeros + 1,
        episode_ids=np.zeros(n, np.int64),
        mixed_steps=0,
        action_set=info["env"]["action_set"],
        frame_skip=int(info["env"]["frame_skip"]),
    )
    losses = pretrain_bc(model, data, epochs=epochs, learning_rate=learning_rate, seed=seed)
    write_whole(out, model.save)
    side = json.loads(model_sidecar(guide).read_text())
    side["tuned_on_search"] = [*side.get("tuned_on_search", []), provenance]
    write_json(model_sidecar(out), side)
    return losses


def tune_rounds(
    guide: Path,
    out: Path,
    rounds: int,
    updates: int,
    epochs: int = 10,
    learning_rate: float = 1e-4,
    seed: int = 0,
    progress: bool = True,
    settings: Sequence[str] = (),
) -> Path:
    """``rounds`` rounds from ``guide``, each model saved in the new folder ``out`` as
    ``roundN.zip``; returns the last. A round stopped (Ctrl-C) keeps the rounds before it.
    ``settings`` change the rounds' search (:func:`search_config`)."""
    if rounds < 1 or updates < 1 or epochs < 1:
        raise UserInputError("rounds, updates and epochs must be at least 1")
    search_config(str(guide), seed, settings)  # a bad setting stops here, before the folder is made
    if out.exists():
        raise UserInputError(f"{out} exists; choose another folder (nothing is overwritten)")
    out.mkdir(parents=True)
    for r in range(1, rounds + 1):
        obs, actions, best = collect(str(guide), updates, seed=seed, progress=progress, settings=settings)
        agree = float(np.mean(actions == _greedy(guide, obs)))
        provenance = {
            "round": r,
            "guide": guide.name,
            "updates": updates,
            "seed": seed,
            **({"settings": list(settings)} if settings else {}),
            "states": len(actions),
            "search_best_s": best,
            "search_agrees_with_guide": agree,
        }
        tuned = out / f"round{r}.zip"
        losses = tune(guide, obs, actions, tuned, epochs, learning_rate, seed, provenance)
        now = float(np.mean(actions == _greedy(tuned, obs)))
        print(
            f"round {r}: {len(actions):,} states, the search's best {best:.2f} s; the search chose the guide's own "
            f"action in {agree:.0%}, the tuned guide's in {now:.0%}; loss {losses[0]:.3f} -> {losses[-1]:.3f}; "
            f"saved {tuned}"
        )
        guide = tuned
    return guide


def _greedy(guide: Path, obs: np.ndarray) -> np.ndarray:
    return guide_from_model(str(guide)).act_obs(obs)
