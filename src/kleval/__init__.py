"""kleval: evaluate and train LLMs to compare how the KL penalty enters RL fine-tuning."""

__version__ = "0.1.0"
