"""The torch devices a training run may name (``run.device``)."""

from __future__ import annotations

import re

from sim_env.errors import UserInputError


def check_device(device: str) -> None:
    """A torch device this machine has: cpu, auto, or a CUDA device that exists."""
    if device in ("cpu", "auto"):
        return
    m = re.fullmatch(r"cuda(?::(\d+))?", device)
    if m is None:
        raise UserInputError(f"run.device must be cpu, auto or cuda[:N], got {device!r}")
    import torch

    count = torch.cuda.device_count()
    if int(m.group(1) or 0) >= count:
        raise UserInputError(f"run.device={device!r}, but this machine has {count} CUDA device(s); use cpu or auto")


__all__ = ["check_device"]
