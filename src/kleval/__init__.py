"""kleval: evaluate and train LLMs to compare how the KL penalty enters RL fine-tuning.

The notebook API (`kleval.evaluate`, `kleval.load_results`, ...) is loaded on first use so that
`import kleval` and `kleval --help` stay light.
"""

__version__ = "0.1.0"

_API = ("evaluate", "load_results", "load_samples", "list_tasks")


def __getattr__(name):
    if name in _API:
        from kleval import api

        return getattr(api, name)
    raise AttributeError(f"module 'kleval' has no attribute {name!r}")


__all__ = ["__version__", *_API]
