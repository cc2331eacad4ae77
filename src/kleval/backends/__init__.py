"""Generation backends behind one factory: `make_backend("hf" | "vllm" | "openai", model_path, ...)`.

Each backend lives in its own module and is imported only when asked for, so importing kleval
never pulls in torch, transformers or vllm.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from kleval.errors import ConfigError
from kleval.types import Backend

_BACKENDS = {
    "hf": ("kleval.backends.hf", "HFBackend"),
    "vllm": ("kleval.backends.vllm", "VLLMBackend"),
    "openai": ("kleval.backends.openai", "OpenAIBackend"),
}


def list_backends() -> list[str]:
    """Names accepted by `make_backend`."""
    return sorted(_BACKENDS)


def make_backend(name: str, model_path: str | Path, *, tokenizer_path: str | Path | None = None,
                 **options: Any) -> Backend:
    """Build the named backend for one model. Options are backend-specific (docs/backends.md)."""
    if name not in _BACKENDS:
        raise ConfigError(f"unknown backend {name!r}; choose one of {', '.join(list_backends())}")
    module_name, class_name = _BACKENDS[name]
    backend_cls = getattr(importlib.import_module(module_name), class_name)
    return backend_cls(model_path, tokenizer_path=tokenizer_path, **options)


__all__ = ["list_backends", "make_backend"]
