"""Loading model files and replay buffers without running code from them.

An SB3 ``.zip`` keeps some of its model's attributes as pickles (``:serialized:``), and a
pickle can call any function when it is loaded. Here none is unpickled as it stands:

- what the project knows (the spaces, from the sidecar's env options; the policy class, from
  the algorithm table; the schedules, rebuilt by SB3 from the model's own numbers) is given to
  SB3 as ``custom_objects``, so SB3 never reads those entries;
- the few plain entries left (the policy's keyword arguments, the training frequency, the
  buffer's class) are unpickled by an unpickler that resolves only the classes listed in
  :data:`ALLOWED_GLOBALS` and nothing else;
- any other pickled entry refuses the file, in one line.

Tensors are loaded by SB3 with ``torch.load(weights_only=True)``. Replay buffers are saved as
``.npz`` files of the buffer's own arrays (read with ``allow_pickle=False``, each checked
against the fresh buffer's shape and type) instead of SB3's pickles.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from sim_env.errors import UserInputError
from sim_env.files import write_whole

# Classes a plain entry may name, by module and name (also under the module paths agents/ had
# before it was split by concept, which older models name).
_ALLOWED = {
    # numbers and arrays as numpy pickles them (a reward-heads policy's weights)
    "numpy": ("dtype", "ndarray"),
    "numpy._core.multiarray": ("scalar", "_reconstruct"),
    "numpy.core.multiarray": ("scalar", "_reconstruct"),
    "torch.nn.modules.activation": ("ReLU", "Tanh", "LeakyReLU", "ELU", "GELU", "SiLU"),
    "torch.optim.adam": ("Adam",),
    "torch.optim.adamw": ("AdamW",),
    "torch.optim.rmsprop": ("RMSprop",),
    "torch.optim.sgd": ("SGD",),
    "stable_baselines3.common.type_aliases": ("TrainFreq", "TrainFrequencyUnit"),
    "stable_baselines3.common.buffers": ("ReplayBuffer", "RolloutBuffer"),
    "agents.methods.imitation": ("DemoReplayBuffer",),
    "agents.methods.prioritized_replay": ("PrioritizedReplayBuffer",),
}
_MOVED = {f"agents.{m.rsplit('.', 1)[1]}": m for m in ("agents.methods.imitation", "agents.methods.prioritized_replay")}
ALLOWED_GLOBALS = frozenset((mod, name) for mod, names in _ALLOWED.items() for name in names)

# Entries the project gives SB3 itself. Episode buffers and the last observation start afresh
# (SB3 makes new ones when training goes on); the schedules are rebuilt by SB3's _setup_model
# from the model's learning rate, exploration and clip numbers.
_SUPPLIED_NONE = ("_last_obs", "_last_episode_starts", "_last_original_obs", "ep_info_buffer", "ep_success_buffer")
_SCHEDULES = ("lr_schedule", "exploration_schedule", "clip_range", "clip_range_vf")
# Entries unpickled with only ALLOWED_GLOBALS resolvable.
_PLAIN = ("policy_kwargs", "train_freq", "replay_buffer_class", "rollout_buffer_class", "replay_buffer_kwargs",
          "rollout_buffer_kwargs")


class UnsafeModelError(UserInputError):
    """A model file carries a pickle the harness does not load."""


class _AllowListUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        module = _MOVED.get(module, module)
        if (module, name) not in ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(f"{module}.{name} is not among the classes a model file may name")
        return super().find_class(module, name)


def plain_unpickle(raw: bytes) -> Any:
    """Unpickles data that names no class but those of :data:`ALLOWED_GLOBALS`."""
    return _AllowListUnpickler(io.BytesIO(raw)).load()


def saved_data(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """A model file's data table and its pickled entries (still pickled)."""
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read("data"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise UserInputError(f"{path} is not a model saved by qwop train ({exc}); is the file damaged?") from exc
    if not isinstance(data, dict):
        raise UserInputError(f"{path} is not a model saved by qwop train (its data is not a table)")
    out = {}
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value:
            try:
                out[key] = base64.b64decode(str(value[":serialized:"]), validate=True)
            except ValueError as exc:
                raise UserInputError(f"{path} is damaged: its entry {key} does not decode") from exc
    return data, out


def custom_objects(path: Path, algo_cls: Any, env_options: dict[str, Any], schedules: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
    """SB3 ``custom_objects`` for every pickled entry of the model file ``path``, none of them
    unpickled as it stands; raises :class:`UnsafeModelError` for an entry the harness does not
    load. ``schedules`` overrides the stand-in schedules (a resumed run's clip range)."""
    observation_space, action_space = spaces_of(env_options)
    out: dict[str, Any] = {}
    data, pickled = saved_data(path)
    for key, raw in pickled.items():
        if key == "observation_space":
            out[key] = observation_space
        elif key == "action_space":
            out[key] = action_space
        elif key == "policy_class":  # an algorithm whose policy depends on its settings says which
            chooser = getattr(algo_cls, "saved_policy_class", None)
            out[key] = chooser(data) if chooser else algo_cls.policy_aliases["MlpPolicy"]
        elif key in _SUPPLIED_NONE:
            out[key] = None
        elif key in _SCHEDULES:
            # SB3 makes schedules from these numbers again when it sets the model up.
            out[key] = (schedules or {}).get(key, 0.0 if key != "clip_range_vf" else None)
        elif key in _PLAIN:
            try:
                out[key] = plain_unpickle(raw)
            except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError) as exc:
                raise UnsafeModelError(
                    f"{path} was refused: its {key} entry is not plain data ({exc}); the harness loads no pickled "
                    "code from a model file"
                ) from exc
        else:
            raise UnsafeModelError(
                f"{path} was refused: it carries a pickled {key} entry, which the harness does not load (a pickle "
                "can run code); models saved by qwop train have none"
            )
    return out


def spaces_of(env_options: dict[str, Any]) -> tuple[Any, Any]:
    """The observation and action spaces of the simulator's env with these options."""
    import gymnasium

    import sim_env  # noqa: F401 (registers QwopSim-v0)

    env = gymnasium.make("QwopSim-v0", **dict(env_options, start_runs=[]))  # start runs change no space
    try:
        return env.observation_space, env.action_space
    finally:
        env.close()


# ---- replay buffers ----

_BUFFER_SKIP = {"observation_space", "action_space", "device", "obs_shape"}


def _buffer_fields(buffer: Any, prefix: str = "") -> dict[str, Any]:
    """The buffer's state: its numpy arrays and numbers, one level into objects it owns (the
    sum tree), its random generator's state as JSON."""
    out: dict[str, Any] = {}
    for name, value in vars(buffer).items():
        if name in _BUFFER_SKIP:
            continue
        key = prefix + name
        if isinstance(value, np.ndarray):
            out[key] = value
        elif isinstance(value, bool | int | float | np.integer | np.floating):
            out[key] = np.asarray(value)
        elif isinstance(value, np.random.Generator):
            out[key] = np.asarray(json.dumps(value.bit_generator.state))
        elif not prefix and hasattr(value, "__dict__") and type(value).__module__.startswith("agents."):
            out.update(_buffer_fields(value, f"{key}."))
    return out


def save_buffer(buffer: Any, path: str | Path) -> Path:
    """Writes a replay buffer's state as ``.npz`` (whole, see sim_env.files)."""
    fields = _buffer_fields(buffer)
    return write_whole(path, lambda f: np.savez(f, **fields))


def load_buffer(buffer: Any, path: str | Path) -> None:
    """Fills a freshly made replay buffer from :func:`save_buffer`'s file. Every field must be
    one the buffer has, of its shape and type; anything else refuses the file. The buffer's
    ``SETTINGS`` (how it samples) stay those it was made with."""
    want = _buffer_fields(buffer)
    try:
        with np.load(path, allow_pickle=False) as z:
            got = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise UserInputError(f"{path} is not a replay buffer saved by qwop train ({exc}); is it damaged?") from exc
    if set(got) != set(want):
        raise UserInputError(
            f"{path} does not fit this run's replay buffer (fields differ: {sorted(set(got) ^ set(want))[:4]}); "
            "resume with the configuration the run was saved with"
        )
    for key, value in got.items():
        text = value.dtype.kind == "U" and want[key].dtype.kind == "U" and value.shape == ()  # a generator's state
        if not text and (value.shape != want[key].shape or value.dtype != want[key].dtype):
            raise UserInputError(
                f"{path} does not fit this run's replay buffer ({key}: {value.shape} {value.dtype}, this run's "
                f"{want[key].shape} {want[key].dtype}); resume with the configuration the run was saved with"
            )
    settings = set(getattr(buffer, "SETTINGS", ()))
    for key, value in got.items():
        if key in settings:
            continue
        owner, name = buffer, key
        if "." in key:
            head, name = key.split(".", 1)
            owner = getattr(buffer, head)
        current = getattr(owner, name)
        if isinstance(current, np.ndarray):
            current[...] = value
        elif isinstance(current, np.random.Generator):
            current.bit_generator.state = json.loads(str(value))
        else:
            setattr(owner, name, type(current)(value.item()))


__all__ = [
    "ALLOWED_GLOBALS",
    "UnsafeModelError",
    "custom_objects",
    "load_buffer",
    "plain_unpickle",
    "save_buffer",
    "saved_data",
    "spaces_of",
]
