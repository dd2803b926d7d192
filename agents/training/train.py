"""``qwop train``: stable-baselines3 on the batched native simulator.

A run folder (``runs/NAME/``) gets: ``config.toml`` (the full configuration used),
TensorBoard logs (``tb/``), checkpoints (``checkpoints/``, with the replay buffer for
DQN-family agents), ``final.zip`` with its ``final.qwop.json`` (the env options a model
needs at evaluation), ``eval.json`` (the final evaluation), and with ``run.best_every`` the
models with the fastest run from the standard start (``best/``, agents/training/best_model.py). ``--resume CHECKPOINT``
continues a run from a checkpoint.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import torch
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from agents.methods.distill import distill
from agents.methods.imitation import DemoInjectionCallback, pretrain_bc
from agents.methods.rnd import RNDLogger
from agents.training.actor_learner import ActorDiedError, ActsInProcess
from agents.training.algorithms import algorithm
from agents.training.best_model import KeepBest
from agents.training.build import build_model, load_demos, make_env, training_class
from agents.training.callbacks import (
    ScheduleHorizon,
    SidecarCheckpoint,
    StopAfterMinutes,
    StopOnRequest,
    TrainingProgress,
)
from agents.training.config import TrainConfig, load_config, to_toml
from agents.training.evaluate import evaluate_sim
from agents.training.model_files import load_model, save_model
from agents.training.resumed import changed_options, load_kwargs, resume_base
from agents.training.safe_loading import custom_objects, load_buffer, save_buffer
from sim_env.env_config import EnvConfig
from sim_env.errors import UserInputError
from sim_env.files import write_json, write_text
from sim_env.interrupts import StopRequest

# Off-policy SB3 writes its logs every log_interval episodes (default 4): with 64 envs that is
# several times per step, a few percent of the learner's time; one TensorBoard point per 100
# episodes keeps the curves. On-policy algorithms log per rollout, as SB3 does.
_EPISODES_PER_LOG = 100


def train(
    cfg: TrainConfig,
    resume: str | None = None,
    log: Any = print,
    callbacks: list[BaseCallback] | None = None,
    _next_stage_of_a_chain: bool = False,
) -> dict[str, Any]:
    """Run one training as configured; returns a summary with the final evaluation.
    ``callbacks`` run too (returning False from one stops training). With ``run.then`` the
    next stage follows from this run's kept model (its summary is returned, every stage's
    in ``stages``)."""
    cfg.validate()
    if not _next_stage_of_a_chain:
        _check_stages(cfg)
    torch.set_num_threads(cfg.run.torch_threads)
    name = cfg.run.name or f"{cfg.algo.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = Path(cfg.run.out_dir) / name
    if run_dir.exists() and any(run_dir.iterdir()):
        raise UserInputError(
            f"{run_dir} already exists and holds a run; choose another --name (or continue it with --resume "
            f"{run_dir}/checkpoints/FILE.zip --config {run_dir}/config.toml)"
        )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserInputError(
            f"cannot create the run folder {run_dir} ({exc.strerror}); set run.out_dir to a folder you can write"
        ) from None
    try:
        with StopRequest() as stop:
            summary = _train_in(cfg, run_dir, resume, log, callbacks or [], stop)
    except BaseException:
        # A run that failed or was stopped before saving any model leaves nothing behind.
        if not any(run_dir.rglob("*.zip")):
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    if not cfg.run.then or summary.get("interrupted"):
        return summary
    return _next_stage(cfg, run_dir, summary, log, callbacks)


def _check_stages(cfg: TrainConfig) -> None:
    """Every stage's config loads, and the chain ends, before hours of training are spent."""
    seen: list[str] = []
    while cfg.run.then:
        if cfg.run.then in seen:
            chain = " -> ".join(Path(s).name for s in [*seen, cfg.run.then])
            raise UserInputError(f"run.then loops ({chain}); end the chain with a config whose run.then is empty")
        seen.append(cfg.run.then)
        cfg = load_config(cfg.run.then, cfg.run.then_set)


def _next_stage(
    cfg: TrainConfig,
    run_dir: Path,
    summary: dict[str, Any],
    log: Any,
    callbacks: list[BaseCallback] | None,
) -> dict[str, Any]:
    """Trains ``cfg.run.then`` from this run's kept model into ``run_dir/STAGE``; returns the
    last stage's summary with every stage's in ``stages``."""
    then = Path(cfg.run.then)
    kept = run_dir / "best" / "best.zip"
    start = kept if kept.is_file() else Path(summary["model"])
    nxt = load_config(then, cfg.run.then_set, base=resume_base(start))
    # Where and how the chain runs is the first stage's; what it trains is the next config's.
    # A time budget (qwop train --minutes) caps every stage that has none of its own.
    nxt.run = replace(
        nxt.run,
        out_dir=str(run_dir),
        name=then.stem,
        progress_bar=cfg.run.progress_bar,
        device=cfg.run.device,
        torch_threads=cfg.run.torch_threads,
        minutes=nxt.run.minutes or cfg.run.minutes,
    )
    log(f"{summarize(summary)}; next stage {then.name} from {start}")
    last = train(nxt, resume=str(start), log=log, callbacks=callbacks, _next_stage_of_a_chain=True)
    return {**last, "stages": [summary, *last.get("stages", [last])]}


def _train_in(
    cfg: TrainConfig, run_dir: Path, resume: str | None, log: Any, extra: list[BaseCallback], stop: StopRequest
) -> dict[str, Any]:
    teacher = None
    if cfg.distill.teacher:
        teacher, info = load_model(cfg.distill.teacher)
        known = {f.name for f in fields(EnvConfig)}
        cfg = replace(cfg, env=EnvConfig(**{k: v for k, v in info["env"].items() if k in known}))
        log(f"distilling {cfg.distill.teacher} ({info['algo']}); the student takes its env options")

    write_text(run_dir / "config.toml", to_toml(cfg))
    env = make_env(cfg)
    tb = str(run_dir / "tb")
    if resume:
        cls = training_class(cfg)
        objects = custom_objects(Path(resume), cls, cfg.env_options(), cfg.algo.schedules())
        # the options the config changes (agents/training/resumed.py), set before SB3 rebuilds
        # the model's schedules and buffer
        changed = changed_options(cfg, resume)
        model = cls.load(
            resume,
            env=env,
            device=cfg.run.device,
            tensorboard_log=tb,
            custom_objects=objects,
            **load_kwargs(cfg, resume, changed),
        )
        if changed:
            log("resumed with " + ", ".join(f"algo.{k} = {v!r}" for k, v in changed.items()) + " (the config's)")
        if hasattr(model, "overlap_targets"):  # how this run computes, not what the model is: the config's
            model.overlap_targets = cfg.algo.overlap_targets  # type: ignore[union-attr]
        # Checkpoints name the buffer rl_model_replay_buffer_N_steps.npz beside rl_model_N_steps.zip.
        rb = Path(str(resume).replace(".zip", "").replace("rl_model_", "rl_model_replay_buffer_") + ".npz")
        if not rb.is_file():  # an interrupted run's: interrupted.zip, interrupted_replay_buffer.npz
            rb = Path(str(resume).removesuffix(".zip") + "_replay_buffer.npz")
        if getattr(model, "replay_buffer", None) is not None and rb.is_file():
            load_buffer(model.replay_buffer, rb)
        elif getattr(model, "replay_buffer", None) is not None:
            if rb.with_suffix(".pkl").is_file():
                log(f"not loading {rb.with_suffix('.pkl').name}: a pickled buffer could run code; it starts empty")
            if isinstance(model, ActsInProcess):
                # Learning from the first few thousand of the resumed policy's transitions
                # undoes it (measured: docs/history/training.md); the model acts, and learns once
                # its buffer is full.
                model.learning_starts = model.num_timesteps + model.buffer_size
                model.act_before_learning = True
                log(f"no replay buffer beside {resume}: the model acts {model.buffer_size:,} steps before it learns")
        if (
            getattr(model, "act_before_learning", False)
            and not isinstance(model, ActsInProcess)
            and model.num_timesteps < model.learning_starts
        ):
            # Saved while a resumed model acted before learning: only the actor process acts
            # with the model's weights then; SB3 alone would act at random until learning starts.
            model.learning_starts = cfg.algo.learning_starts
            model.act_before_learning = False
            log(f"{resume} was saved before it learnt; without the actor process it learns from now on")
        if hasattr(env, "rnd"):
            env.steps = model.num_timesteps  # the bonus's schedule goes on (its networks start afresh)
        log(f"resumed from {resume} at {model.num_timesteps} steps")
    else:
        model = build_model(cfg, env, tb)
    callbacks: list[BaseCallback] = [*extra, StopOnRequest(stop)]
    if cfg.run.checkpoint_every > 0:
        callbacks.append(
            SidecarCheckpoint(
                cfg,
                save_freq=max(1, cfg.run.checkpoint_every // cfg.batch.num_envs),
                save_path=str(run_dir / "checkpoints"),
                save_replay_buffer=algorithm(cfg.algo.name).off_policy,
            )
        )
    if cfg.run.best_every > 0:
        r = cfg.run
        callbacks.append(
            KeepBest(
                cfg,
                run_dir / "best",
                r.best_every,
                r.best_min_success,
                r.best_episodes,
                r.best_confirm_episodes,
                log,
                r.best_target_s,
                in_process=not r.best_async,
            )
        )
    if hasattr(env, "rnd"):
        callbacks.append(RNDLogger())
    if cfg.run.minutes > 0:
        callbacks.append(StopAfterMinutes(cfg.run.minutes))
    if cfg.run.minutes > 0 or cfg.run.steps > 0:
        callbacks.append(ScheduleHorizon(cfg.run.total_timesteps))
    im = cfg.imitation
    bc_losses: list[float] = []
    if im.pretrain and not resume:
        data = load_demos(cfg, im.pretrain)
        bc_losses = pretrain_bc(
            model,
            data,
            epochs=im.bc_epochs,
            learning_rate=im.bc_learning_rate,
            batch_size=im.bc_batch_size,
            seed=cfg.run.seed,
        )
        log(f"behaviour cloning on {len(data)} demo steps: loss {bc_losses[0]:.3f} -> {bc_losses[-1]:.3f}")
    injector = None
    if im.inject:
        data = load_demos(cfg, im.inject)
        injector = DemoInjectionCallback(data, ratio=im.inject_ratio, until=im.inject_until, seed=cfg.run.seed)
        callbacks.append(injector)
    # SB3 counts a resumed model's budget from where it resumed; run.steps is this run's own.
    total = cfg.run.steps if cfg.run.steps > 0 else (cfg.run.total_timesteps if cfg.run.minutes <= 0 else 10**12)
    steps0 = int(model.num_timesteps)  # a resumed model's
    t0 = time.monotonic()
    distilled = None
    if teacher is not None:
        d = cfg.distill
        distilled = distill(
            model,
            teacher,
            env,
            d.steps,
            d.epochs,
            d.batch_size,
            d.learning_rate,
            d.temperature,
            d.dagger_rounds,
            cfg.run.seed,
            log=log,
        )
    else:
        if cfg.run.progress_bar:
            log(f"TensorBoard logs: {tb} (watch with: tensorboard --logdir {tb})")
            keep = next((c for c in callbacks if isinstance(c, KeepBest)), None)
            status = keep.judge.status if keep is not None else None
            callbacks.append(TrainingProgress(total, cfg.run.minutes * 60.0, status=status))  # a time budget: seconds
        try:
            model.learn(
                total_timesteps=total,
                callback=CallbackList(callbacks),
                progress_bar=False,  # TrainingProgress shows the budget and the latest episodes
                reset_num_timesteps=not resume,
                tb_log_name="tb",
                log_interval=_EPISODES_PER_LOG if algorithm(cfg.algo.name).off_policy else 1,
            )
        except ActorDiedError as exc:  # the learner's work so far is kept
            _close_helpers(callbacks)
            kept = _save_interrupted(model, cfg, run_dir, env, time.monotonic() - t0, steps0, "the actor died")
            raise ActorDiedError(f"{exc}; the model so far is saved, continue with: {resume_command(kept)}") from None
        except BaseException:
            env.close()  # an actor process stops with the learner
            _close_helpers(callbacks)
            raise
        env.close()  # an actor process stops here, before the final evaluation
    train_s = time.monotonic() - t0
    if stop.requested:
        return _save_interrupted(model, cfg, run_dir, env, train_s, steps0, stop.signal_name)
    final = save_model(model, run_dir / "final.zip", cfg)
    report = evaluate_sim(
        final, episodes=cfg.run.eval_episodes, num_threads=cfg.batch.num_threads, progress=cfg.run.progress_bar
    )
    summary = {
        "run_dir": str(run_dir),
        "model": str(final),
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_s, 1),
        "steps_per_second": round((model.num_timesteps - steps0) / max(train_s, 1e-9)),
        "bc_losses": bc_losses,
        "injected": injector.injected if injector else 0,
        "distill": distilled,
        "eval": report,
    }
    write_json(run_dir / "eval.json", summary, default=float)
    env.close()
    return summary


def _close_helpers(callbacks: list[BaseCallback]) -> None:
    """Ends what callbacks hold open (a judge process, the progress bar) when training failed."""
    for cb in callbacks:
        if callable(getattr(cb, "close", None)):
            cb.close()


def _save_interrupted(
    model: BaseAlgorithm, cfg: TrainConfig, run_dir: Path, env: Any, train_s: float, steps0: int, why: str
) -> dict[str, Any]:
    """The model as it was when the run was stopped, with its replay buffer, and no evaluation."""
    path = save_model(model, run_dir / "interrupted.zip", cfg)
    if algorithm(cfg.algo.name).off_policy and getattr(model, "replay_buffer", None) is not None:
        save_buffer(model.replay_buffer, run_dir / "interrupted_replay_buffer.npz")
    summary = {
        "run_dir": str(run_dir),
        "model": str(path),
        "interrupted": why or True,
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_s, 1),
        "steps_per_second": round((model.num_timesteps - steps0) / max(train_s, 1e-9)),
    }
    write_json(run_dir / "interrupted.json", summary)
    env.close()
    return summary


def resume_command(summary: dict[str, Any]) -> str:
    """How to continue an interrupted run (into a new run folder beside it)."""
    run_dir = Path(summary["run_dir"])
    return f"qwop train --resume {summary['model']} --config {run_dir / 'config.toml'} --name {run_dir.name}-continued"


def summarize(summary: dict[str, Any]) -> str:
    return (
        f"trained {summary['timesteps']:,} steps in {summary['train_seconds']:.0f} s "
        f"({summary['steps_per_second']:,} steps/s); model {summary['model']}"
    )


__all__ = [
    "ScheduleHorizon",
    "StopAfterMinutes",
    "StopOnRequest",
    "TrainingProgress",
    "build_model",
    "resume_command",
    "summarize",
    "train",
]
