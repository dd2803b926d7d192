"""Training on the batched simulator with stable-baselines3: the configuration, the algorithm
table, model files, keeping the best model, evaluation, and ``qwop train`` itself."""
