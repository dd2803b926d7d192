"""Search in the exact simulator for fast runs that replay open-loop in the original: the
planner (beam search, unguided or guided by a policy's rollouts), running its stages on Ray,
sampling a policy's stochastic runs, and the rollout policy's improved runs."""
