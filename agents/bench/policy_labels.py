"""Benchmark of on-policy expert labels: how far a policy is from its rollout policy, and whether
fine-tuning it on the rollout policy's labels, on its own states, brings it closer.

    python -m agents.bench.policy_labels [MODEL] [--games 64] [--lookahead 30] [--fit margin:3e-5 advantage:3e-5]
    python -m agents.bench.policy_labels --quick        # a smoke run (CI)

Two sets of games from noisy starts, driven by the model (with chance ``--mix`` a decision
takes the label instead), labelled by the rollout policy over it
(``agents.search.policy_labels``): one to learn from, one held out (another seed). For the
model as it is and for each fit, the table gives how often its greedy action is the label,
the rollout metres it loses per decision against the best action (regret, on the held-out
states), its run from the standard start and its noisy starts (``--episodes``, simulator).
A fit is ``LOSS:LEARNING_RATE``: ``margin`` is DQfD's large-margin loss on the label (margin
0.1), ``advantage`` regresses the Q-values' advantages on half the rollouts' (scaled to the
Q-values' spread) and half the model's own, ``soft`` is the cross-entropy of the Q-values'
softmax (scaled to the rollouts' spread) against the rollout values' softmax at
``SOFT_TEMPERATURE_M``; all hold the mean Q-value where it was. ``--save-labels FILE`` keeps
both sets of labels and ``--labels FILE`` fits on them again without labelling. Each fit
starts from the model, ``--epochs`` epochs of Adam, one torch thread.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from agents.search.guided_rollouts import guide_from_sb3
from agents.search.policy_labels import PolicyLabels, label_policy_states, load_labels, save_labels
from agents.shipped import PRETRAINED
from agents.training.evaluate import evaluate_policy_sim
from agents.training.model_files import load_model
from agents.usage import OneLineParser
from sim_env.errors import UserInputError

MARGIN = 0.1  # DQfD's margin, about the Q-values' median gap between the two best actions here
ADVANTAGE_SHARE = 0.5  # the rollouts' share of the advantage target; the rest is the model's own
ADVANTAGE_CLIP_M = 3.0  # rollout advantages beyond this many metres (falls) count as this many
# A rollout 0.5 m ahead makes its action e times likelier: about twice the metres per decision
# the model loses on its own states, so the targets stay soft where the rollouts are close
SOFT_TEMPERATURE_M = 0.5
LOSSES = ("margin", "advantage", "soft")


def fit(model: Any, data: PolicyLabels, loss: str, learning_rate: float, epochs: int, seed: int = 0) -> list[float]:
    """Fine-tune ``model``'s Q-network on ``data`` (see the module's docstring); the mean loss per
    epoch, the term that holds the mean Q-value included."""
    import torch

    from agents.methods.imitation import _logits, minibatch_fit

    torch.set_num_threads(1)
    x = torch.as_tensor(data.obs)
    y = torch.as_tensor(data.labels)
    with torch.no_grad():
        q0 = _logits(model, x).double()
    v = torch.as_tensor(data.values)
    va = (v - v.mean(1, keepdim=True)).clamp(-ADVANTAGE_CLIP_M, ADVANTAGE_CLIP_M)
    q0a = q0 - q0.mean(1, keepdim=True)
    scale = float(q0a.std() / va.std().clamp_min(1e-9))
    target = ((1 - ADVANTAGE_SHARE) * q0a + ADVANTAGE_SHARE * scale * va).float()
    q0_mean = q0.mean(1).float()
    soft = torch.softmax(va / SOFT_TEMPERATURE_M, dim=1).float()
    # the Q-values' advantages in units of the targets' logits
    k = float(va.std() / SOFT_TEMPERATURE_M / q0a.std().clamp_min(1e-9))

    def batch_loss(idx: torch.Tensor) -> torch.Tensor:
        q = _logits(model, x[idx])
        if loss == "margin":
            bump = torch.full_like(q, MARGIN).scatter_(1, y[idx, None], 0.0)
            main = ((q + bump).max(dim=1).values - q.gather(1, y[idx, None])[:, 0]).mean()
        elif loss == "soft":
            logp = torch.log_softmax(k * (q - q.mean(1, keepdim=True)), dim=1)
            main = -(soft[idx] * logp).sum(1).mean()
        else:
            main = ((q - q.mean(1, keepdim=True) - target[idx]) ** 2).mean()
        return main + ((q.mean(1) - q0_mean[idx]) ** 2).mean()

    curve = minibatch_fit(model, len(x), batch_loss, epochs, learning_rate, seed=seed)
    if hasattr(model, "q_net_target"):
        model.q_net_target.load_state_dict(model.q_net.state_dict())
    return curve


def judge(model: Any, env: dict[str, Any], train: PolicyLabels, held: PolicyLabels, episodes: int) -> dict[str, Any]:
    guide = guide_from_sb3(model, env)
    chosen = guide.act_obs(held.obs)
    start = evaluate_policy_sim(model, env, episodes=1, num_envs=1, start_noise_updates=0)
    noisy = evaluate_policy_sim(model, env, episodes=episodes, num_envs=min(32, episodes), seed=100)
    return {
        "agrees_train": float(np.mean(guide.act_obs(train.obs) == train.labels)),
        "agrees_held_out": float(np.mean(chosen == held.labels)),
        "regret_m": held.regret_m(chosen),
        "from_start_s": start["best_finish_time_s"],
        "noisy_finished": noisy["success_rate"],
        "noisy_median_s": noisy["median_finish_time_s"],
    }


def _fit_spec(text: str) -> tuple[str, float]:
    loss, _, lr = text.partition(":")
    try:
        rate = float(lr)
    except ValueError:
        rate = -1.0
    if loss not in LOSSES or not 0.0 < rate < 1.0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a fit is LOSS:RATE, LOSS one of {', '.join(LOSSES)}, RATE in (0, 1)"
        )
    return loss, rate


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m agents.bench.policy_labels", description=__doc__.split("\n\n")[0])
    ap.add_argument("model", nargs="?", default=str(PRETRAINED))
    made_by = {  # the flags that make labels: their types, defaults and help
        "games": (int, 64, "games to learn from (half as many are held out)"),
        "lookahead": (int, 30, "decisions of each rollout"),
        "mix": (float, 0.0, "chance a game takes the label, not the model's action"),
    }
    for name, (kind, default, text) in made_by.items():
        ap.add_argument(f"--{name}", type=kind, help=f"{text} (default {default:g})")
    ap.add_argument("--fit", type=_fit_spec, nargs="*", default=[("margin", 3e-5), ("advantage", 3e-5)])
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--episodes", type=int, default=128, help="noisy starts each model is judged on")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="a smoke run: 4 games, lookahead 3, 2 epochs")
    ap.add_argument("--out", help="also write the rows as JSON to this new file")
    ap.add_argument("--save-labels", metavar="FILE", help="keep the labels in this new file (.npz)")
    ap.add_argument("--labels", metavar="FILE", help="fit on the labels --save-labels kept instead of labelling")
    args = ap.parse_args(argv)
    given = [f"--{name}" for name in made_by if getattr(args, name) is not None]
    if args.save_labels:
        given.append("--save-labels")
    if args.labels and given:
        raise UserInputError(f"--labels fits on kept labels, which were made already: drop {', '.join(given)}")
    for name, (_, default, _) in made_by.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.quick:
        args.games, args.lookahead, args.epochs, args.episodes = 4, 3, 2, 4
    if not 0.0 <= args.mix <= 1.0:
        raise UserInputError(f"--mix is a chance, from 0 to 1 (not {args.mix})")
    if min(args.games, args.lookahead, args.epochs, args.episodes, args.threads) < 1:
        raise UserInputError("--games, --lookahead, --epochs, --episodes and --threads must be at least 1")
    if args.save_labels and Path(args.save_labels).exists():
        raise UserInputError(f"{args.save_labels} exists; choose another --save-labels (nothing is overwritten)")
    if args.out and Path(args.out).exists():
        raise UserInputError(f"{args.out} exists; choose another --out (nothing is overwritten)")
    model, info = load_model(args.model)
    env = info["env"]
    if args.labels:
        kept, made = load_labels(args.labels)
        if set(kept) != {"train", "held"}:
            raise UserInputError(
                f"{args.labels} has no train and held-out sets; --save-labels of this benchmark writes them"
            )
        train, held = kept["train"], kept["held"]
        print(f"labels from {args.labels}: {made}")
        source = {"labels": args.labels, "labelled": made}
    else:
        guide = guide_from_sb3(model, env, args.model)
        sets = []
        for games, seed in ((args.games, 0), (max(1, args.games // 2), 1)):
            print(f"labelling the states of {games} games (lookahead {args.lookahead}, seed {seed}) ...", flush=True)
            sets.append(
                label_policy_states(
                    guide, guide, games, args.lookahead, args.mix, seed=seed, threads=args.threads, progress=True
                )
            )
        train, held = sets
        source = {"model": args.model, "games": args.games, "lookahead": args.lookahead, "mix": args.mix}
        if args.save_labels:
            print(f"labels kept in {save_labels(args.save_labels, {'train': train, 'held': held}, source)}")
    print(f"{len(train.labels):,} states to learn from, {len(held.labels):,} held out")
    rows = [{"model": "as it is", **judge(model, env, train, held, args.episodes)}]
    for loss, rate in args.fit:
        tuned, _ = load_model(args.model)
        curve = fit(tuned, train, loss, rate, args.epochs)
        rows.append(
            {
                "model": f"{loss} {rate:g}",
                "loss": [curve[0], curve[-1]],
                **judge(tuned, env, train, held, args.episodes),
            }
        )
        print(f"fitted {loss} {rate:g}: loss {curve[0]:.4f} -> {curve[-1]:.4f}", flush=True)
    head = ("model", "agrees (learnt)", "agrees (held out)", "regret m/decision", "from the start", "noisy finished")
    print("| " + " | ".join(head) + " | noisy median |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        start = "fell" if r["from_start_s"] is None else f"{r['from_start_s']:.2f} s"
        med = "-" if r["noisy_median_s"] is None else f"{r['noisy_median_s']:.2f} s"
        print(
            f"| {r['model']} | {r['agrees_train']:.1%} | {r['agrees_held_out']:.1%} | {r['regret_m']:.3f} | {start} "
            f"| {r['noisy_finished']:.1%} | {med} |"
        )
    if args.out:
        from sim_env.files import write_json

        write_json(
            args.out,
            {**source, "model": args.model, "rows": rows},
        )
    return 0


if __name__ == "__main__":
    from agents.exits import user_errors_in_one_line

    raise SystemExit(user_errors_in_one_line(main))
