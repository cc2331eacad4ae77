"""The lean RL training loop: KL configurations, advantages, losses, rollouts, logs, checkpoints.

Read `loop.py` first: it is the story of one run from top to bottom. `kl.py` holds the thing the
project studies (how the KL penalty enters the gradient); `gradcheck.py` checks it exactly.
Heavy imports (torch, transformers) happen inside the modules, never here.
"""
