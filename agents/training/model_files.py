"""Model files: an SB3 ``.zip`` and, beside it, its ``.qwop.json`` sidecar (the algorithm and
the env options the model was trained with, which evaluation needs to rebuild its env)."""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import IO, Any

from agents.training.algorithms import algo_class
from agents.training.config import TrainConfig, from_dict
from sim_env.errors import UserInputError, one_line

# Models and replay buffers saved before agents/ was split by concept name their classes (the
# replay buffer's, for one) at these module paths; they load from where the classes are now.
MOVED_MODULES = {
    f"agents.{name}": f"agents.methods.{name}"
    for name in ("pddqn", "prioritized_replay", "reward_heads", "rnd", "distill", "imitation")
}


class _MovedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(MOVED_MODULES.get(module, module), name)


def _names_moved(raw: bytes) -> bool:
    return any(old.encode() in raw for old in MOVED_MODULES)


def moved_classes(path: Path) -> dict[str, Any]:
    """SB3 ``custom_objects`` for the saved objects of a model .zip that name a moved module."""
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read("data"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return {}  # SB3's own load then says what is wrong with the file
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value:
            raw = base64.b64decode(value[":serialized:"])
            if _names_moved(raw):
                out[key] = _MovedUnpickler(io.BytesIO(raw)).load()
    return out


def replay_buffer_file(path: Path) -> str | IO[bytes]:
    """A saved replay buffer for SB3's ``load_replay_buffer``: the file, or (when it names a
    moved module) the same buffer pickled again from where its classes are now."""
    raw = path.read_bytes()
    if not _names_moved(raw):
        return str(path)
    return io.BytesIO(pickle.dumps(_MovedUnpickler(io.BytesIO(raw)).load(), protocol=pickle.HIGHEST_PROTOCOL))


def model_sidecar(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".zip") + ".qwop.json")


def write_sidecar(path: Path, cfg: TrainConfig, num_timesteps: int) -> None:
    """The env options a model needs at evaluation, beside its .zip."""
    side = {"algo": cfg.algo.name, "env": cfg.env_options(), "num_timesteps": int(num_timesteps)}
    model_sidecar(path).write_text(json.dumps(side, indent=2))


def save_model(model: Any, path: Path, cfg: TrainConfig) -> Path:
    model.save(str(path))
    write_sidecar(path, cfg, model.num_timesteps)
    return path


def check_model_file(path: str | Path) -> Path:
    """The model file a user named (``.zip`` may be left off), or a one-line error saying why not."""
    p = Path(path)
    if not p.is_file() and p.suffix != ".zip" and p.with_name(p.name + ".zip").is_file():
        p = p.with_name(p.name + ".zip")
    if not p.is_file():
        raise UserInputError(f"model not found: {path} (qwop train writes runs/NAME/final.zip and checkpoints)")
    if not zipfile.is_zipfile(p):
        raise UserInputError(f"{p} is not a model saved by qwop train (not a .zip archive); is the file damaged?")
    if not model_sidecar(p).is_file():
        raise UserInputError(
            f"{model_sidecar(p)} is missing: it records the env options {p.name} was trained with "
            "(qwop train writes it beside every model and checkpoint)"
        )
    return p


def read_sidecar(model: Path) -> dict[str, Any]:
    """The sidecar of a checked model file (``check_model_file``): its algorithm (one we train)
    and its env options (unknown keys, wrong types and nulls refused; missing ones are the
    env's defaults), or a one-line error saying it is damaged."""
    side = model_sidecar(model)
    try:
        info = json.loads(side.read_text())
        algo_class(info["algo"])
        env = info["env"]
        if not isinstance(env, dict):
            raise TypeError(f"env must be a table of options, got {env!r}")
        from_dict({"env": env})
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise UserInputError(f"{side} is damaged ({one_line(exc)}); it comes from qwop train beside the model") from exc
    return info


def load_model(path: str | Path) -> tuple[Any, dict[str, Any]]:
    """An SB3 model and the env options it was trained with (from its .qwop.json)."""
    p = check_model_file(path)
    info = read_sidecar(p)
    cls = algo_class(info["algo"])
    try:
        model = cls.load(str(p), device="cpu", custom_objects=moved_classes(p))
    except Exception as exc:  # SB3 raises many kinds for a damaged or foreign archive
        raise UserInputError(
            f"{p} could not be loaded as a {info['algo']} model ({one_line(exc)[:200]}); is the file damaged?"
        ) from exc
    return model, info
