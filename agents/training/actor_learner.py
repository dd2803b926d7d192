"""Actor and learner side by side: the single-machine form of Ape-X.

With ``batch.async_actor`` a DQN-family run steps the batched simulator and the acting policy
in a process of its own (the *actor*), while the learner (SB3's ``learn`` loop, its replay
buffer and its gradient steps) runs in the training process. The actor streams its
transitions in chunks through a bounded queue; the learner takes them in order, exactly where
SB3 would have stepped its env, so every callback, the episode statistics, the replay buffer
and the replay ratio (``train_freq``, ``gradient_steps``) work as in a synchronous run. Every
``batch.actor_sync`` gradient steps the learner sends the actor its online network and the
current exploration rate.

When the learner is the slower side, the actor blocks on the full queue: the run goes at the
pace of the slower side instead of at the sum of both. The acting policy lags the learner by
at most ``actor_sync`` updates and a few queued chunks, and the processes' timing decides
which weights act on which step, so runs repeat in their settings, not bit for bit.

Exploration in the actor is epsilon-greedy per env (each env draws its own coin), and random
until ``learning_starts``, as SB3's DQN.
"""

from __future__ import annotations

import multiprocessing
import pickle
import queue
import signal
import threading
import time
import traceback
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from agents.training.envs import make_stepped_env
from sim_env.errors import UserInputError

CHUNK = 8  # vector steps per message: fewer, larger messages; the learner waits for at most one
QUEUE_CHUNKS = 4  # how far the actor may run ahead of the learner
_POLL_S = 1.0  # how often a waiting learner checks that the actor is alive


class ActorDiedError(UserInputError):
    """The actor process stopped (an error in it, or it was killed); the run cannot go on."""


class _Outbox:
    """The actor's sending end: up to ``QUEUE_CHUNKS`` messages wait here while a thread writes
    them to the pipe, so the actor steps on while the learner reads."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.closed = False
        self.waiting: queue.Queue[Any] = queue.Queue(maxsize=QUEUE_CHUNKS)
        threading.Thread(target=self._send, daemon=True).start()

    def _send(self) -> None:
        try:
            while True:
                self.conn.send(self.waiting.get())
                self.waiting.task_done()
        except OSError:
            self.closed = True  # the learner closed its end: it is stopping us

    def put(self, message: Any) -> None:
        """Waits while the learner is behind; ends the actor once the learner is gone (even
        killed: then nobody would ever read, or stop us)."""
        parent = multiprocessing.parent_process()
        while True:
            try:
                self.waiting.put(message, timeout=_POLL_S)
                return
            except queue.Full:
                if self.closed or (parent is not None and not parent.is_alive()):
                    raise SystemExit(0) from None

    def flush(self, timeout: float = 10.0) -> None:
        """Waits until what was put has been sent (the learner reads our last words)."""
        end = time.monotonic() + timeout
        while self.waiting.unfinished_tasks and not self.closed and time.monotonic() < end:
            time.sleep(0.01)


def _actor_main(*args: Any) -> None:
    """The actor process's entry point."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the learner's to handle; it stops us
    _act(*args)


def _act(cfg_data: bytes, q_net: bytes, conn: Any, control: Any, seed: int) -> None:
    """Steps the env with the latest weights sent and streams chunks of ``(actions, new_obs,
    rewards, dones, infos)``; an error is sent as its last line."""
    data = _Outbox(conn)
    try:
        import torch

        torch.set_num_threads(1)
        cfg = pickle.loads(cfg_data)
        net = pickle.loads(q_net)
        env = make_stepped_env(cfg)
        n, n_actions = env.num_envs, int(env.action_space.n)
        rng = np.random.default_rng([seed, 1])
        obs = env.reset()
        data.put(("reset", obs))
        eps: float | None = None  # None: uniformly random actions (before learning starts)
        state = None  # the newest weights sent, loaded once however many came
        while True:
            while True:  # the latest weights sent, if any (a queue: the learner never waits on us)
                try:
                    msg = control.get_nowait()
                except queue.Empty:
                    break
                if msg is None:
                    return
                state, eps = msg
            if state is not None:
                net.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()})
                state = None
            chunk = []
            for _ in range(CHUNK):
                if eps is None:
                    actions = rng.integers(0, n_actions, n)
                else:
                    with torch.no_grad():
                        greedy = net._predict(torch.as_tensor(obs), deterministic=True).numpy()
                    explore = rng.random(n) < eps
                    actions = np.where(explore, rng.integers(0, n_actions, n), greedy)
                new_obs, rewards, dones, infos = env.step(actions)
                chunk.append((actions, new_obs, rewards, dones, infos))
                obs = new_obs
            data.put(("chunk", (chunk, time.process_time())))
    except Exception:  # reported by the learner in one line (ActorDiedError), not as a traceback here
        data.put(("error", traceback.format_exc().strip().splitlines()[-1]))
        data.flush()


class ActorFeed(VecEnv):
    """The learner's view of the actor: a VecEnv whose steps are the actor's, in order.

    ``next_actions`` is what the actor did on the coming step (the learner stores it as the
    action taken); ``step`` then returns that step's outcome. ``sync`` sends new weights."""

    def __init__(self, cfg: Any, observation_space: Any, action_space: Any, num_envs: int) -> None:
        self.cfg = cfg  # before VecEnv's __init__, which reads render_mode through get_attr
        super().__init__(num_envs, observation_space, action_space)
        self._proc: Any = None
        self._pending: list[Any] = []
        self._last_obs: np.ndarray | None = None
        self.chunks_received = 0
        self.actor_cpu_s = 0.0  # the actor process's CPU time, as of its latest chunk
        self.learner_waits = 0  # chunks the learner had to wait for (the actor was the slower side)

    # -- the actor process
    def start(self, q_net: Any) -> None:
        ctx = multiprocessing.get_context("spawn")  # a clean interpreter: no forked torch threads
        # A plain pipe whose writing end only the actor holds: if the actor dies, even halfway
        # through a message, reading it ends (EOFError) instead of waiting for the rest.
        self._data, writer = ctx.Pipe(duplex=False)
        self._control = ctx.Queue()  # the learner's sends never wait on the actor
        args = (pickle.dumps(self.cfg), pickle.dumps(q_net), writer, self._control, self.cfg.run.seed)
        self._proc = ctx.Process(target=_actor_main, args=args, name="qwop-actor", daemon=True)
        self._proc.start()
        writer.close()

    def sync(self, state: dict[str, np.ndarray], exploration_rate: float) -> None:
        if self._proc is not None:
            self._control.put((state, float(exploration_rate)))

    def _receive(self) -> tuple[str, Any]:
        if not self._data.poll():
            self.learner_waits += 1
        try:
            while not self._data.poll(_POLL_S):
                if not self._proc.is_alive():
                    raise EOFError
            return self._data.recv()
        except (EOFError, OSError):
            self._proc.join(timeout=_POLL_S)
            raise ActorDiedError(f"the actor process stopped (exit code {self._proc.exitcode})") from None

    def _message(self) -> Any:
        kind, payload = self._receive()
        if kind == "error":
            raise ActorDiedError(f"the actor process failed: {payload}")
        return payload

    def next_actions(self) -> np.ndarray:
        if not self._pending:
            chunk, self.actor_cpu_s = self._message()
            self._pending = list(reversed(chunk))
            self.chunks_received += 1
        return self._pending[-1][0]

    # -- VecEnv
    def reset(self) -> VecEnvObs:
        if self._proc is None:
            raise RuntimeError("ActorFeed.start must be called before reset")
        if self._last_obs is None:
            self._last_obs = self._message()
        return self._last_obs

    def step_async(self, actions: np.ndarray) -> None:
        pass  # the actor chose them (next_actions)

    def step_wait(self) -> VecEnvStepReturn:
        self.next_actions()
        _, new_obs, rewards, dones, infos = self._pending.pop()
        self._last_obs = new_obs
        return new_obs, rewards, dones, infos

    def close(self) -> None:
        if self._proc is None:
            return
        if self._proc.is_alive():
            self._control.put(None)
            # an actor waiting to send would not read the stop: take what it sends meanwhile
            try:
                for _ in range(QUEUE_CHUNKS + 2):
                    if not self._data.poll(0.2):
                        break
                    self._data.recv()
            except (EOFError, OSError):
                pass
            self._proc.join(timeout=5)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(timeout=5)
        self._data.close()
        self._control.cancel_join_thread()
        self._control.close()
        self._proc = None

    def seed(self, seed: int | None = None) -> list[int | None]:
        return [seed] * self.num_envs  # the actor's env takes run.seed

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self.cfg.env, attr_name, None) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError("the actor's envs have no attributes to set")

    def env_method(self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any) -> list[Any]:
        raise AttributeError(f"the actor's envs have no method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> list[np.ndarray | None]:
        return [None] * self.num_envs


class ActsInProcess:
    """Mixin for an SB3 DQN-family class: actions and steps come from the actor process."""

    actor_sync: int = 50
    act_before_learning: bool = False  # the actor acts with the model's weights before learning starts (a resume)
    _synced_at: int | None = None
    _sent_rate: float | None = None

    def _setup_learn(self, *args: Any, **kwargs: Any) -> Any:
        feed = self.env
        if not isinstance(feed, ActorFeed):
            raise TypeError("a run with batch.async_actor trains on an ActorFeed env")
        if feed._proc is None:
            feed.start(self.q_net)
        return super()._setup_learn(*args, **kwargs)  # type: ignore[misc]

    def _sample_action(self, learning_starts: int, action_noise: Any = None, n_envs: int = 1) -> Any:
        if self.num_timesteps < learning_starts:
            # Only a resumed model acts before it learns; its weights are the loaded ones, sent
            # again only when the exploration rate changes.
            due = self.act_before_learning and self._sent_rate != self.exploration_rate
        else:
            due = self._synced_at is None or self._n_updates - self._synced_at >= self.actor_sync
        if due:
            state = {k: v.detach().cpu().numpy().copy() for k, v in self.q_net.state_dict().items()}
            self.env.sync(state, self.exploration_rate)
            self._synced_at, self._sent_rate = self._n_updates, self.exploration_rate
        actions = self.env.next_actions()
        return actions, actions


def acting_in_process(cls: type, actor_sync: int) -> type:
    """``cls`` (DQN, QRDQN, PrioritizedDoubleDQN) whose experience comes from an actor process,
    sent new weights every ``actor_sync`` gradient steps."""
    return type(f"{cls.__name__}ActingInProcess", (ActsInProcess, cls), {"actor_sync": actor_sync})


def actor_feed(cfg: Any) -> ActorFeed:
    """The learner's env for ``cfg`` (its spaces are the simulator's; the actor starts on learn)."""
    from sim_env.vec_env import QwopVecEnv

    probe = QwopVecEnv(1, 1, start_keys=cfg.start_keys(), config=cfg.env)
    try:
        return ActorFeed(cfg, probe.single_observation_space, probe.single_action_space, cfg.batch.num_envs)
    finally:
        probe.close()


__all__ = ["ActorDiedError", "ActorFeed", "ActsInProcess", "acting_in_process", "actor_feed"]
