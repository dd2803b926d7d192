"""What a resumed run trains with: the model's own ``[algo]`` options, with the config's over them.

A model file keeps the options it was trained with (SB3 saves them in its data table). When a
run resumes a model, those are the defaults of its ``[algo]`` section, and a config file or
``--set`` changes only what it names: ``qwop train --resume MODEL`` goes on as the model was
trained, ``--set algo.learning_rate=1e-5`` changes that one option, and the run folder's
``config.toml`` says what the run really used. The changed options reach the model through
SB3's ``load(**kwargs)``, which sets them before the model rebuilds its schedules and buffers.

Options the model's network or kind of buffer were made with (``FIXED_ON_RESUME`` of each
algorithm's options) are not changed on resume: a config giving another value is refused in
one line. The buffer's own settings (prioritised replay's exponent, the returns it keeps) are
passed in its keyword table; a saved buffer whose arrays do not fit is refused when it is
loaded.
"""

from __future__ import annotations

import pickle
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from agents.training.algorithms import algorithm
from agents.training.config import TrainConfig, from_dict
from agents.training.model_files import check_model_file, read_sidecar
from agents.training.safe_loading import plain_unpickle, saved_data
from sim_env.errors import UserInputError


def _where(options: type, name: str) -> str:
    """The entry of a model's data table that keeps the option ``name`` ("" if none does)."""
    saved_as: dict[str, str] = {}
    for cls in reversed(options.__mro__):
        saved_as.update(getattr(cls, "SAVED_AS", {}))
    return saved_as.get(name, name)


def _entry(data: dict[str, Any], pickled: dict[str, bytes], entry: str) -> Any:
    """An entry of a model's data table as plain data (None if it is not there, or not plain)."""
    if entry not in pickled:
        return data.get(entry)
    try:
        return plain_unpickle(pickled[entry])
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
        return None  # not plain data (loading the model refuses it in one line)


def saved_options(path: str | Path, algo: str) -> dict[str, Any]:
    """The ``[algo]`` options the model file ``path`` (of algorithm ``algo``) was trained with,
    those its data table keeps."""
    options = algorithm(algo).options
    data, pickled = saved_data(Path(path))
    out: dict[str, Any] = {}
    for f in fields(options):
        where = _where(options, f.name)
        entry, _, key = where.partition(".")
        if not entry:
            continue
        value = _entry(data, pickled, entry)
        if entry == "train_freq":  # SB3's (frequency, unit): the option counts env steps
            if getattr(value, "unit", None) is None or str(value.unit.value) != "step":
                continue
            value = value.frequency
        if key:  # a key missing from the table came after the model was made: it had the default
            value = value.get(key, f.default) if isinstance(value, dict) else None
        if value is not None:
            out[f.name] = value
    return out


def resume_base(path: str | Path) -> TrainConfig:
    """The defaults of a run resuming the model ``path``: every section's own, and the model's
    algorithm with the ``[algo]`` options it was trained with."""
    algo = str(read_sidecar(check_model_file(path))["algo"])
    return from_dict({"algo": {"name": algo, **saved_options(path, algo)}})


def changed_options(cfg: TrainConfig, path: str | Path) -> dict[str, Any]:
    """The ``[algo]`` options whose value in ``cfg`` differs from the model ``path``'s, with the
    config's values. Raises for one the model cannot take (FIXED_ON_RESUME)."""
    options = type(cfg.algo)
    fixed = {n for cls in options.__mro__ for n in getattr(cls, "FIXED_ON_RESUME", ())}
    wanted = asdict(cfg.algo)
    out: dict[str, Any] = {}
    for name, value in saved_options(path, cfg.algo.name).items():
        if wanted[name] == value:
            continue
        if name in fixed:
            raise UserInputError(
                f"algo.{name} is {value!r} in {path} and cannot change when it is resumed (got {wanted[name]!r}); "
                f"leave it out, or train a new model"
            )
        out[name] = wanted[name]
    return out


def load_kwargs(cfg: TrainConfig, path: str | Path, changed: dict[str, Any]) -> dict[str, Any]:
    """What SB3's ``load`` sets on the model ``path`` for the ``changed`` options: each under the
    name the model keeps it by, a setting of its buffer in the buffer's whole table."""
    out: dict[str, Any] = {}
    for name, value in changed.items():
        entry, _, key = _where(type(cfg.algo), name).partition(".")
        if key:
            if entry not in out:
                out[entry] = dict(_entry(*saved_data(Path(path)), entry) or {})
            out[entry][key] = value
        else:
            out[entry] = value
    return out


__all__ = ["changed_options", "load_kwargs", "resume_base", "saved_options"]
