"""Training configuration: every parameter of ``qwop train`` with its default and meaning.

The env's options are the env's own ``EnvConfig`` (training changes only its default
``frame_skip``, to 4); the other sections are defined here. A config file (TOML) may set any
subset; ``qwop train --set section.key=value`` overrides single values; ``qwop train
--print-config`` prints every parameter with its default and meaning, generated from these
definitions. Files are read with ``tomllib``, checked and converted with pydantic, and
written with ``tomli-w``.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any, ClassVar, Union

import numpy as np
import tomli_w
from pydantic import Field, TypeAdapter, ValidationError

from agents.training.algorithms import ALGORITHMS, algorithm, options_of, own_options
from agents.training.algos.base import option
from agents.training.algos.ppo import PPOOptions
from agents.training.devices import check_device
from sim_env import MAX_ENVS
from sim_env.env_config import MAX_CLICK_UPDATE, EnvConfig
from sim_env.errors import UserInputError
from sim_env.files import check_plain_name

_STRICT: dict[str, Any] = {"extra": "forbid"}
# The [algo] section's type: the options of the algorithm its name names.
AnyAlgoOptions = Annotated[Union[tuple(a.options for a in ALGORITHMS.values())], Field(discriminator="name")]  # noqa: UP007


def training_env() -> EnvConfig:
    """The env options training uses by default: the env's own, at 4 updates per action."""
    return EnvConfig(frame_skip=4)


@dataclass
class BatchSection:
    """How the training envs are stepped."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    num_envs: int = option(16, "envs stepped together")
    num_threads: int = option(1, "C++ threads stepping the batch")
    vectorized: bool = option(True, "true: the batched C++ engine; false: SB3 DummyVecEnv of QwopSim-v0 envs")
    async_actor: bool = option(
        False,
        "dqn, qrdqn, pddqn: the envs and the acting policy run in a process of their own beside the learner "
        "(same replay ratio; runs repeat in their settings, not bit for bit)",
    )
    actor_sync: int = option(50, "async_actor: gradient steps between refreshes of the acting policy's weights")


@dataclass
class PolicySection:
    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    net_arch: list[int] = option([256, 128], "hidden layer sizes")
    activation: str = option("relu", "relu | tanh")


@dataclass
class RunSection:
    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    total_timesteps: int = option(2_000_000)
    minutes: float = option(0.0, "> 0: stop after this much wall-clock time instead")
    steps: int = option(
        0,
        "> 0: stop after this many env steps of this run (from its start or resume); schedules: total_timesteps",
    )
    then: str = option(
        "", "a config to train next, resumed from this run's kept model (best/best.zip, else final), in runs/NAME/STAGE"
    )
    then_set: list[str] = option([], "overrides (section.key=value) of run.then's config, e.g. run.minutes=0")
    seed: int = option(0)
    out_dir: str = option("runs")
    name: str = option("", "run folder name (default: algo and time)")
    checkpoint_every: int = option(100_000, "env steps between checkpoints (0 = none)")
    eval_episodes: int = option(32, "episodes with start noise of the final evaluation")
    best_every: int = option(
        0, "env steps between looks at the run from the standard start, keeping the fastest in best/ (0 = off)"
    )
    best_min_success: float = option(0.9, "a model is kept in best/ only if this share of noisy starts finish")
    best_episodes: int = option(128, "noisy starts judging a model for best/ (seed 1; evaluations use seed 0)")
    best_confirm_episodes: int = option(512, "other noisy starts (seed 2) a passing model must pass again (0: none)")
    best_target_s: float = option(
        0.0, "> 0: once a kept model runs from the start under this time, keep the most reliable under it"
    )
    best_click: int = option(
        0,
        "> 0: judge models for best/ from a real-time page's start, the click in this intro update (their noisy "
        "starts after it too); 0: the traces' start",
    )
    best_both: bool = option(False, "with run.best_click: judge from the traces' start too; the slower run counts")
    best_async: bool = option(False, "judge best/'s models in a process beside the learner, which trains on meanwhile")
    judge_nice: int = option(0, "best_async: niceness added to the judge process (0-19): the learner and actor first")
    progress_bar: bool = option(True)
    torch_threads: int = option(1)
    device: str = option("cpu")


@dataclass
class ImitationSection:
    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    pretrain: list[str] = option([], "demo files or folders for behaviour cloning")
    bc_epochs: int = option(10)
    bc_learning_rate: float = option(1e-3)
    bc_batch_size: int = option(256)
    inject: list[str] = option([], "demo files or folders injected into the replay buffer (dqn, qrdqn, pddqn)")
    inject_ratio: float = option(1.0, "demo transitions per new transition while injecting")
    inject_until: int = option(200_000, "env steps (counted from the start or resume) during which demos are injected")


@dataclass
class DistillSection:
    """Policy distillation (agents/methods/distill.py): set ``teacher`` and ``qwop train`` trains the
    student (algo ppo or a2c, shaped by [policy]) on the teacher's action distributions
    instead of by RL; the student's env options are the teacher's."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    teacher: str = option("", "model file of the teacher (empty: no distillation)")
    steps: int = option(100_000, "env steps of teacher states recorded (and per DAgger round)")
    epochs: int = option(10, "passes over the recorded states after each recording")
    batch_size: int = option(512)
    learning_rate: float = option(1e-3)
    temperature: float = option(0.01, "softmax temperature turning a Q-learning teacher's values into a distribution")
    dagger_rounds: int = option(1, "rounds where the student drives and the teacher labels (0: teacher states only)")


@dataclass
class TrainConfig:
    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    env: EnvConfig = field(default_factory=training_env)
    batch: BatchSection = field(default_factory=BatchSection)
    algo: AnyAlgoOptions = field(default_factory=PPOOptions)  # type: ignore[valid-type]
    policy: PolicySection = field(default_factory=PolicySection)
    run: RunSection = field(default_factory=RunSection)
    imitation: ImitationSection = field(default_factory=ImitationSection)
    distill: DistillSection = field(default_factory=DistillSection)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def validate(self) -> None:
        """Checks across sections (each section's own values were checked on loading)."""
        algo = algorithm(self.algo.name)
        if self.policy.activation not in ("relu", "tanh"):
            raise UserInputError(f"policy.activation must be relu or tanh, got {self.policy.activation!r}")
        for where, value, low in (
            ("batch.num_envs", self.batch.num_envs, 1),
            ("batch.num_threads", self.batch.num_threads, 1),
            ("batch.actor_sync", self.batch.actor_sync, 1),
            ("run.total_timesteps", self.run.total_timesteps, 1),
            ("run.eval_episodes", self.run.eval_episodes, 1),
            ("run.torch_threads", self.run.torch_threads, 1),
            ("run.checkpoint_every", self.run.checkpoint_every, 0),
            ("run.best_every", self.run.best_every, 0),
            ("run.best_episodes", self.run.best_episodes, 1),
            ("run.best_confirm_episodes", self.run.best_confirm_episodes, 0),
            ("run.best_target_s", self.run.best_target_s, 0),
            ("run.minutes", self.run.minutes, 0),
            ("run.steps", self.run.steps, 0),
            ("distill.steps", self.distill.steps, 1),
            ("distill.epochs", self.distill.epochs, 1),
            ("distill.batch_size", self.distill.batch_size, 1),
            ("distill.dagger_rounds", self.distill.dagger_rounds, 0),
            ("imitation.bc_batch_size", self.imitation.bc_batch_size, 1),
        ):
            if value < low:
                raise UserInputError(f"{where} must be at least {low}, got {value}")
        for section in fields(self):
            for f in fields(getattr(self, section.name)):
                value = getattr(getattr(self, section.name), f.name)
                if isinstance(value, float) and not math.isfinite(value):
                    raise UserInputError(f"{section.name}.{f.name} must be a finite number, got {value}")
        self.algo.check()
        for where, value, low, high in (
            ("run.seed", self.run.seed, 0, 2**32 - 1),
            ("run.judge_nice", self.run.judge_nice, 0, 19),
        ):
            if not low <= value <= high:
                raise UserInputError(f"{where} must be from {low:g} to {high:g}, got {value}")
        if not self.policy.net_arch or any(n < 1 for n in self.policy.net_arch):
            raise UserInputError(f"policy.net_arch must list layer sizes of at least 1, got {self.policy.net_arch}")
        if self.run.name:
            check_plain_name(self.run.name, "run.name")  # a folder inside run.out_dir
        check_device(self.run.device)
        if self.batch.num_envs > MAX_ENVS:
            raise UserInputError(f"batch.num_envs must be at most {MAX_ENVS:,}, got {self.batch.num_envs:,}")
        for where, rate in (
            ("imitation.bc_learning_rate", self.imitation.bc_learning_rate),
            ("distill.learning_rate", self.distill.learning_rate),
        ):
            if not (math.isfinite(rate) and rate > 0):
                raise UserInputError(f"{where} must be a positive number, got {rate}")
        if not 0 <= (click := self.run.best_click) <= MAX_CLICK_UPDATE:
            raise UserInputError(f"run.best_click must be 0 or an intro update <= {MAX_CLICK_UPDATE}, got {click!r}")
        if self.run.best_both and not self.run.best_click:
            raise UserInputError("run.best_both judges from a click and from the traces' start: set run.best_click too")
        if not 0.0 <= self.run.best_min_success <= 1.0:
            raise UserInputError(f"run.best_min_success must be between 0 and 1, got {self.run.best_min_success}")
        if self.distill.teacher and self.algo.name not in ("ppo", "a2c"):
            raise UserInputError(f"a distilled student is a ppo or a2c policy; got algo.name={self.algo.name!r}")
        if not self.distill.temperature > 0:
            raise UserInputError(f"distill.temperature must be positive, got {self.distill.temperature}")
        if getattr(self.algo, "reward_heads", False) and self.imitation.inject:
            raise UserInputError("algo.reward_heads needs no imitation.inject (demos have no reward terms)")
        if self.batch.async_actor and (not algo.off_policy or self.algo.rnd_weight > 0 or self.distill.teacher):
            raise UserInputError("batch.async_actor needs dqn, qrdqn or pddqn, without algo.rnd_weight or distillation")
        if self.env.start_runs:
            self.start_keys()  # readable, with at least one run from the click to begin
        if self.imitation.inject and not algo.off_policy:
            raise UserInputError(
                "imitation.inject (replay-buffer injection) needs dqn, qrdqn or pddqn; use pretrain for ppo/a2c"
            )

    def env_options(self) -> dict[str, Any]:
        """The training env's options (keyword arguments of ``QwopSim-v0`` and ``make_vec``)."""
        return {f.name: getattr(self.env, f.name) for f in fields(EnvConfig)}

    def start_keys(self) -> list[np.ndarray] | None:
        """The keys of ``env.start_runs``'s runs, which the envs take as ``start_keys``."""
        from demos.start_runs import start_run_keys

        return start_run_keys(self.env.start_runs) if self.env.start_runs else None


_ADAPTER = TypeAdapter(TrainConfig)
_SECTIONS = tuple(f.name for f in fields(TrainConfig))
_MOVED = {"num_envs": "batch", "num_threads": "batch", "vectorized": "batch"}


def _one_line(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = [str(x) for x in err["loc"]]
    section_only = len(loc) == 1
    # [algo] is a union tagged by its name: ("algo", "pddqn", "option") names algo.option
    tag = loc.pop(1) if loc[0] == "algo" and len(loc) >= 2 and loc[1] in ALGORITHMS else None
    if err["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        if section_only:
            return f"unknown config section [{loc[0]}]; sections: {', '.join(_SECTIONS)}"
        owners = options_of(loc[-1]) if tag else []
        if owners:
            listed = ", ".join(owners[:-1]) + " and " + owners[-1] if len(owners) > 1 else owners[0]
            return (
                f"algo.{loc[-1]} is an option of {listed}, not of {tag}; "
                f"`qwop train --algo {tag} --print-config` lists its options"
            )
        where, key = ".".join(loc[:-1]), loc[-1]
        moved = f" ({key} is in [{_MOVED[key]}] now)" if where == "env" and key in _MOVED else ""
        return f"{where}: unknown parameter {key!r}{moved}; `qwop train --print-config` lists every parameter"
    msg = err["msg"].removeprefix("Value error, ")
    where = ".".join(loc) or "config"
    if err["type"] == "value_error":
        return f"[{where}]: {msg}"
    return f"{where}: {msg}, got {err.get('input')!r}"


def _reject_bools(data: dict[str, Any], defaults: dict[str, Any]) -> None:
    """A bool where a number belongs (TOML's true for a count) is an error, not 1."""
    for section, values in data.items():
        for key, value in values.items() if isinstance(values, dict) else ():
            default = defaults.get(section, {}).get(key)
            if isinstance(value, bool) and default is not None and not isinstance(default, bool):
                kind = "an integer" if isinstance(default, int) else "a number"
                raise UserInputError(f"{section}.{key} must be {kind}, got {value!r}")


def from_dict(data: dict[str, Any], base: TrainConfig | None = None) -> TrainConfig:
    """``base`` (the defaults) with the given sections' values replaced, checked and converted."""
    merged = (base or TrainConfig()).to_dict()
    defaults = TrainConfig().to_dict()
    for name, values in data.items():
        if name in merged and not isinstance(values, dict):
            raise UserInputError(f"[{name}] must be a table")
        if name == "algo" and values.get("name", merged["algo"]["name"]) != merged["algo"]["name"]:
            # another algorithm: its own options, from their defaults
            if not isinstance(values["name"], str):
                raise UserInputError(f"algo.name must be one of {tuple(ALGORITHMS)}, got {values['name']!r}")
            merged["algo"] = defaults["algo"] = asdict(algorithm(values["name"]).options())
        if name in merged:
            merged[name] = {**merged[name], **values}
        else:
            merged[name] = values
    _reject_bools(data, defaults)
    try:
        return _ADAPTER.validate_python(merged)
    except ValidationError as exc:
        raise UserInputError(_one_line(exc)) from None


def parse_override(item: str) -> tuple[str, str, Any]:
    if "=" not in item or "." not in item.split("=", 1)[0]:
        raise UserInputError(f"override {item!r} must look like section.key=value")
    key, raw = item.split("=", 1)
    section, name = key.strip().split(".", 1)
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw  # a bare string
    return section, name, value


def load_config(
    path: str | Path | None, overrides: list[str] | None = None, base: TrainConfig | None = None
) -> TrainConfig:
    """Defaults (``base``'s if given), then the file's values, then ``section.key=value`` overrides."""
    data: dict[str, Any] = {}
    if path:
        p = Path(path)
        if not p.is_file():
            raise UserInputError(f"config file not found: {p} (qwop train --print-config shows every parameter)")
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UserInputError(f"{p} is not valid TOML (UTF-8): {exc}") from exc
        _paths_relative_to(data, p.parent)
        if isinstance(data.get("algo"), dict):
            data["algo"] = own_options(data["algo"])
    over: dict[str, dict[str, Any]] = {}
    for item in overrides or []:
        section, name, value = parse_override(item)
        over.setdefault(section, {})[name] = value
    # An override's files are relative to the working directory, kept absolute for config.toml.
    _paths_relative_to(over, Path.cwd())
    for section, table in over.items():
        if section in data and not isinstance(data[section], dict):
            raise UserInputError(f"[{section}] must be a table")
        data.setdefault(section, {}).update(table)
    then = data.get("run", {}).get("then") if isinstance(data.get("run"), dict) else None
    if isinstance(then, str) and then:
        q = Path(then)
        if not q.is_file():
            raise UserInputError(f'run.then names {q}, which is not a config file; fix the path or set run.then=""')
        data["run"]["then"] = str(q)
    cfg = from_dict(data, base)
    cfg.validate()
    return cfg


# Files a config file names are relative to that file, so that a recipe finds them (and its
# next stage) from any working directory; those of an override, to the working directory.
_FILE_PATHS = (
    ("env", "start_runs"),
    ("imitation", "pretrain"),
    ("imitation", "inject"),
    ("distill", "teacher"),
    ("run", "then"),
)


def _paths_relative_to(data: dict[str, Any], base: Path) -> None:
    def under(v: Any) -> Any:
        return str((base / v).resolve()) if isinstance(v, str) and v and not Path(v).is_absolute() else v

    for section, name in _FILE_PATHS:
        table = data.get(section)
        if isinstance(table, dict) and name in table:
            v = table[name]
            table[name] = [under(x) for x in v] if isinstance(v, list) else under(v)
    then_set = data.get("run", {}).get("then_set") if isinstance(data.get("run"), dict) else None
    if isinstance(then_set, list) and all(isinstance(x, str) for x in then_set):
        # The next stage's files, like this config's own, are relative to where it is set.
        parsed = [parse_override(x) for x in then_set]
        data["run"]["then_set"] = [
            f"{sec}.{key}={_inline([under(x) for x in v] if isinstance(v, list) else under(v))}"
            if (sec, key) in _FILE_PATHS
            else item
            for item, (sec, key, v) in zip(then_set, parsed, strict=True)
        ]


def _inline(value: Any) -> str:
    """One TOML value on one line (tables inline, so that comments can follow)."""
    if isinstance(value, dict):
        items = ", ".join(f"{k} = {_inline(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    return tomli_w.dumps({"v": value}).strip().removeprefix("v = ")


def to_toml(cfg: TrainConfig, comments: bool = True) -> str:
    """The whole configuration as TOML (what ``--print-config`` prints and a run folder keeps),
    each parameter followed by its meaning."""
    data = cfg.to_dict()
    if not comments:
        return tomli_w.dumps(data)
    lines = [
        "# Every parameter of `qwop train`. A config file may set any subset; override one value",
        "# with `qwop train --set section.key=value`.",
    ]
    for section in fields(TrainConfig):
        lines += ["", f"[{section.name}]"]
        for f in fields(getattr(cfg, section.name)):
            text = f"{f.name} = {_inline(data[section.name][f.name])}"
            help_text = f.metadata.get("help", "")
            lines.append(f"{text}  # {help_text}" if help_text else text)
    return "\n".join(lines) + "\n"
