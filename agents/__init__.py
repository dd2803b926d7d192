"""Agents: training on the batched simulator (stable-baselines3), evaluation in the
simulator and in the real game, imitation from demos, and search for the best key
sequence. The ``qwop`` command (``agents.cli``) is the entry point."""
