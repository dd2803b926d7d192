"""Connecting to Ray: ``--ray ADDRESS`` (a running cluster, HOST:PORT) or ``--ray local`` (one
started on loopback on this machine), with one-line errors when that cannot be done."""

from __future__ import annotations

import socket
from typing import Any

from sim_env.errors import UserInputError


def connect(address: str, cpus: int | None = None, connect_timeout_s: float = 30.0) -> Any:
    """The ``ray`` module, initialised for ``address`` (``cpus``: a local cluster's size)."""
    try:
        import ray
    except ImportError:
        raise UserInputError("--ray needs the ray package: .venv/bin/pip install 'ray>=2.9'") from None
    if address != "local":
        _check_answers(address, connect_timeout_s)
    try:
        if address == "local":
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
        else:
            ray.init(address=address, log_to_driver=False)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserInputError(f"cannot connect to the Ray cluster at {address!r}: {first}") from None
    return ray


def _check_answers(address: str, timeout_s: float) -> None:
    """Fail in one line, quickly, when nothing listens at a Ray address (host:port)."""
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise UserInputError(f"--ray takes 'local' or a cluster address HOST:PORT, got {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=min(timeout_s, 5.0)):
            pass
    except OSError as exc:
        raise UserInputError(
            f"the Ray cluster at {address!r} does not answer ({exc.strerror or exc}); "
            "start it with `ray start --head` or use --ray local"
        ) from None


__all__ = ["connect"]
