"""Learning methods of the seed documents, each a config switch of ``qwop train``: prioritised
double DQN and its replay, one Q head per reward term, the RND bonus, policy distillation, and
imitation (behaviour cloning, demonstration injection)."""
