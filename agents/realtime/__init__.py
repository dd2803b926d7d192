"""Playing the original in real time with the exact simulator in the loop: the lookahead
controller and ``qwop play``."""
