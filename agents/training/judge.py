"""Judging models for best/ in a process beside the learner (``run.best_async``).

Judging a model (``ModelJudge``: its run from the standard start, then up to 128 and 512
noisy starts) takes from a fraction of a second to half a minute of simulation. Done in the
learner, it stops training meanwhile, and with ``batch.async_actor`` the actor soon waits too:
in the record recipe's from-scratch run the looks cost over a third of the wall time. Here
the learner hands the model's weights (network and optimizer state) to a judge process and
goes on; the judge loads them into its copy of the model, judges, saves a kept model and
sends its row back.

While the judge is busy, the newest model looked at waits for it and replaces any older one
waiting: the judge always takes the freshest model, and a look dropped that way is counted
(``dropped_looks`` in each row). At the end of a run the model waiting, if any, is judged
before the run returns, so the next stage of a chain starts from the final verdict. If the
judge process fails or is killed, the run goes on with judging in the learner.

``run.judge_nice`` lowers the judge's CPU priority: where the learner and the actor fill the
cores, the judge then runs in what they leave, and the freshest model waits longer for it.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import queue
import shutil
import signal
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from agents.training.model_files import load_model, save_model

_POLL_S = 1.0  # how often a waiting side checks that the other is alive


def model_state(model: Any) -> bytes:
    """The weights a judge needs to stand in for ``model``: the policy (online and target
    networks) and its optimizer's state, so a kept model trains on as the learner's would."""
    import torch

    buf = io.BytesIO()
    torch.save({"policy": model.policy.state_dict(), "optimizer": model.policy.optimizer.state_dict()}, buf)
    return buf.getvalue()


def load_model_state(model: Any, state: bytes, num_timesteps: int) -> None:
    import torch

    data = torch.load(io.BytesIO(state), weights_only=True)
    model.policy.load_state_dict(data["policy"])
    model.policy.optimizer.load_state_dict(data["optimizer"])
    model.num_timesteps = num_timesteps


def _judge_main(judge_data: bytes, base_model: str, jobs: Any, results: Any) -> None:
    """The judge process's entry point: judges each ``(meta, state)`` sent until ``None``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the learner's to handle; it ends us
    try:
        import torch

        torch.set_num_threads(1)
        judge = pickle.loads(judge_data)
        os.nice(judge.cfg.run.judge_nice)  # on a full machine, idle time only: the learner and actor go first
        model, _ = load_model(base_model)
        parent = multiprocessing.parent_process()
        while True:
            try:
                job = jobs.get(timeout=_POLL_S)
            except queue.Empty:
                if parent is not None and not parent.is_alive():
                    return  # the learner is gone (even killed): nobody would read our verdicts
                continue
            if job is None:
                return
            meta, state = job
            load_model_state(model, state, int(meta["timesteps"]))
            row = judge.judge(model, meta)
            results.put(("row", row, judge.best_time, judge.best_rate, judge.looks, judge.fastest_look))
    except Exception:  # reported by the learner in one line, not as a traceback here
        results.put(("error", traceback.format_exc().strip().splitlines()[-1]))


class JudgeProcess:
    """The learner's end of a judge process standing in for ``judge`` (a ``ModelJudge``, whose
    ``best_time``, ``best_rate`` and ``rows`` follow the process's verdicts as they come)."""

    def __init__(self, judge: Any, model: Any) -> None:
        self.judge = judge
        self.busy = False
        self.pending: tuple[dict[str, Any], bytes] | None = None
        self.dropped = 0  # looks replaced by a newer one while the judge was busy
        self.failure = ""  # why the judge process stopped, once it did
        self._tmp = Path(tempfile.mkdtemp(prefix="qwop-judge-"))
        base = save_model(model, self._tmp / "base.zip", judge.cfg)  # the model's class and settings
        ctx = multiprocessing.get_context("spawn")  # a clean interpreter: no forked torch threads
        self._jobs, self._results = ctx.Queue(), ctx.Queue()
        args = (pickle.dumps(judge), str(base), self._jobs, self._results)
        self._proc = ctx.Process(target=_judge_main, args=args, name="qwop-judge", daemon=True)
        self._proc.start()

    @property
    def alive(self) -> bool:
        return not self.failure

    def submit(self, model: Any, meta: dict[str, Any]) -> None:
        """Hands ``model`` as it is now to the judge, or has it wait for the judge if busy."""
        if self.pending is not None:
            self.dropped += 1
        self.pending = ({**meta, "dropped_looks": self.dropped}, model_state(model))
        self._send()

    def _send(self) -> None:
        if not self.busy and self.pending is not None and self.alive:
            self._jobs.put(self.pending)
            self.pending, self.busy = None, True

    def poll(self, timeout: float = 0.0) -> list[dict[str, Any]]:
        """The rows judged since the last call (waiting up to ``timeout`` s for one)."""
        rows: list[dict[str, Any]] = []
        end = time.monotonic() + timeout
        while self.alive:
            try:
                left = end - time.monotonic()
                msg = self._results.get(timeout=left) if left > 0 else self._results.get_nowait()
            except queue.Empty:
                if self.busy and not self._proc.is_alive():
                    self._proc.join(timeout=_POLL_S)
                    self.failure = f"the judge process stopped (exit code {self._proc.exitcode})"
                break
            if msg[0] == "error":
                self.failure = f"the judge process failed: {msg[1]}"
                break
            _, row, self.judge.best_time, self.judge.best_rate, self.judge.looks, self.judge.fastest_look = msg
            self.busy = False
            if row is not None:
                self.judge.rows.append(row)
                rows.append(row)
            self._send()
            end = 0.0  # then only what has already come
        return rows

    def finish(self, log: Any = print) -> list[dict[str, Any]]:
        """Judges the model waiting, if any, then ends the judge process; returns the rows."""
        rows: list[dict[str, Any]] = []
        if self.busy or self.pending is not None:
            log("waiting for the judge's verdict on the last models looked at (Ctrl-C again to drop it)")
        try:
            while self.alive and (self.busy or self.pending is not None):
                rows += self.poll(timeout=_POLL_S)
        finally:
            self.close()
        return rows

    def close(self) -> None:
        """Ends the judge process (at once if it is still judging) and removes its files."""
        if self._proc.is_alive():
            self._jobs.put(None)
            self._proc.join(timeout=0.0 if self.busy else 5.0)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(timeout=5.0)
        # What the judge did not read is dropped: else exiting would wait to write it to nobody.
        self._jobs.cancel_join_thread()
        self.busy, self.pending = False, None
        shutil.rmtree(self._tmp, ignore_errors=True)


__all__ = ["JudgeProcess", "load_model_state", "model_state"]
