"""One module per algorithm ``qwop train`` offers: its options (the ``[algo]`` section when
``algo.name`` names it), their checks and the keyword arguments that build its model. The
table of algorithms is ``agents.training.algorithms``."""
