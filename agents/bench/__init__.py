"""Benchmarks that print figures (run by hand, and in CI as a smoke run): the simulator
(``sim``), its vector env (``vec``), the browser harness (``browser``), learning per CPU budget
(``learning``) and the planner per CPU budget (``search``)."""
