"""Training configuration: every parameter of ``qwop train`` with its default.

``agents/default_config.toml`` lists the same parameters and defaults (a test keeps them
equal); a config file may set any subset, and ``qwop train --set section.key=value``
overrides single values. ``qwop train --print-config`` prints the full default file.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import tomli_w

from agents.algorithms import algorithm
from sim_env.usage import UserInputError


@dataclass
class EnvSection:
    """The env's options (every field of ``sim_env.env_config.EnvConfig``, which defines and
    validates them; a test keeps the two in step) with training's own defaults, then how the
    training batch is stepped."""

    action_set: str = "distinct"  # full | distinct | article
    frame_skip: int = 4  # game updates per action (30 updates = 1 s); the env's own default is 1
    reward: str = "progress"  # progress | speed | shaped
    reward_weights: dict[str, float] = field(default_factory=dict)  # per-term weight overrides
    time_limit: float = 120.0  # game seconds per training episode
    frame_stack: int = 1
    start_noise_updates: int = 0
    num_envs: int = 16
    num_threads: int = 1  # C++ threads stepping the batch
    vectorized: bool = True  # true: the batched C++ engine; false: SB3 DummyVecEnv of QwopSim-v0 envs


@dataclass
class AlgoSection:
    name: str = "ppo"  # ppo | a2c | dqn | qrdqn
    learning_rate: float = 3e-4
    gamma: float = 0.99
    # on-policy (ppo, a2c)
    n_steps: int = 256  # per env and update (a2c uses 5 if left at 256)
    batch_size: int = 1024  # ppo minibatch; dqn/qrdqn batch
    n_epochs: int = 5  # ppo
    ent_coef: float = 0.01
    clip_range: float = 0.2  # ppo
    gae_lambda: float = 0.95
    # off-policy (dqn, qrdqn)
    buffer_size: int = 200_000
    learning_starts: int = 5_000
    train_freq: int = 4
    gradient_steps: int = 1
    target_update_interval: int = 2_000
    exploration_fraction: float = 0.2
    exploration_final_eps: float = 0.05


@dataclass
class PolicySection:
    net_arch: list[int] = field(default_factory=lambda: [256, 128])
    activation: str = "relu"  # relu | tanh


@dataclass
class RunSection:
    total_timesteps: int = 2_000_000
    minutes: float = 0.0  # > 0: stop after this much wall-clock time instead
    seed: int = 0
    out_dir: str = "runs"
    name: str = ""  # run folder name (default: algo and time)
    checkpoint_every: int = 100_000  # env steps between checkpoints (0 = none)
    eval_episodes: int = 32
    progress_bar: bool = True
    torch_threads: int = 1
    device: str = "cpu"


@dataclass
class ImitationSection:
    pretrain: list[str] = field(default_factory=list)  # demo files for behaviour cloning
    bc_epochs: int = 10
    bc_learning_rate: float = 1e-3
    bc_batch_size: int = 256
    inject: list[str] = field(default_factory=list)  # demo files injected into the replay buffer (dqn, qrdqn)
    inject_ratio: float = 1.0  # demo transitions per new transition while injecting
    inject_until: int = 200_000  # env steps during which demos are injected; then off


@dataclass
class TrainConfig:
    env: EnvSection = field(default_factory=EnvSection)
    algo: AlgoSection = field(default_factory=AlgoSection)
    policy: PolicySection = field(default_factory=PolicySection)
    run: RunSection = field(default_factory=RunSection)
    imitation: ImitationSection = field(default_factory=ImitationSection)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def validate(self) -> None:
        algo = algorithm(self.algo.name)
        if self.policy.activation not in ("relu", "tanh"):
            raise UserInputError(f"policy.activation must be relu or tanh, got {self.policy.activation!r}")
        for where, value, low in (
            ("env.num_envs", self.env.num_envs, 1),
            ("env.num_threads", self.env.num_threads, 1),
            ("run.total_timesteps", self.run.total_timesteps, 1),
            ("run.eval_episodes", self.run.eval_episodes, 1),
            ("run.torch_threads", self.run.torch_threads, 1),
            ("run.checkpoint_every", self.run.checkpoint_every, 0),
            ("run.minutes", self.run.minutes, 0),
        ):
            if value < low:
                raise UserInputError(f"{where} must be at least {low}, got {value}")
        if self.imitation.inject and not algo.off_policy:
            raise UserInputError(
                "imitation.inject (replay-buffer injection) needs dqn or qrdqn; use pretrain for ppo/a2c"
            )
        from sim_env.env_config import EnvConfig

        try:
            EnvConfig(**self.env_options())
        except ValueError as exc:
            raise UserInputError(f"[env]: {exc}") from exc

    def env_options(self) -> dict[str, Any]:
        """The options of the training env, exactly the fields of ``EnvConfig``."""
        from sim_env.env_config import EnvConfig

        return {f.name: getattr(self.env, f.name) for f in fields(EnvConfig)}


def _apply(section: Any, values: dict[str, Any], where: str) -> None:
    known = {f.name: f for f in fields(section)}
    for key, value in values.items():
        if key not in known:
            raise UserInputError(f"{where}: unknown parameter {key!r}; known: {sorted(known)}")
        current = getattr(section, key)
        if isinstance(current, bool):
            if not isinstance(value, bool):
                raise UserInputError(f"{where}.{key} must be true or false, got {value!r}")
        elif isinstance(current, int) and not isinstance(value, bool):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if not isinstance(value, int):
                raise UserInputError(f"{where}.{key} must be an integer, got {value!r}")
        elif isinstance(current, float):
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise UserInputError(f"{where}.{key} must be a number, got {value!r}")
            value = float(value)
        elif isinstance(current, list) and not isinstance(value, list):
            raise UserInputError(f"{where}.{key} must be a list, got {value!r}")
        elif isinstance(current, dict) and not isinstance(value, dict):
            raise UserInputError(f"{where}.{key} must be a table, got {value!r}")
        elif isinstance(current, str) and not isinstance(value, str):
            raise UserInputError(f"{where}.{key} must be a string, got {value!r}")
        setattr(section, key, value)


def from_dict(data: dict[str, Any]) -> TrainConfig:
    cfg = TrainConfig()
    for name, values in data.items():
        if not hasattr(cfg, name) or name.startswith("_"):
            raise UserInputError(f"unknown config section [{name}]; sections: env, algo, policy, run, imitation")
        if not isinstance(values, dict):
            raise UserInputError(f"[{name}] must be a table")
        _apply(getattr(cfg, name), values, name)
    return cfg


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> TrainConfig:
    """Defaults, then the file's values, then ``section.key=value`` overrides (TOML values)."""
    data: dict[str, Any] = {}
    if path:
        p = Path(path)
        if not p.is_file():
            raise UserInputError(f"config file not found: {p} (qwop train --print-config shows every parameter)")
        try:
            data = tomllib.loads(p.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise UserInputError(f"{p} is not valid TOML: {exc}") from exc
    cfg = from_dict(data)
    for item in overrides or []:
        if "=" not in item or "." not in item.split("=", 1)[0]:
            raise UserInputError(f"override {item!r} must look like section.key=value")
        key, raw = item.split("=", 1)
        section, name = key.split(".", 1)
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw  # a bare string
        if not hasattr(cfg, section):
            raise UserInputError(f"unknown config section {section!r} in override {item!r}")
        _apply(getattr(cfg, section), {name: value}, section)
    cfg.validate()
    return cfg


def to_toml(cfg: TrainConfig) -> str:
    """The whole configuration as TOML (what ``--print-config`` prints and a run folder keeps)."""
    return tomli_w.dumps(cfg.to_dict())
