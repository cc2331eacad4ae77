"""Study settings in one place: built-in defaults < a study spec TOML (evals/*.toml) < explicit
settings, turned into an EvalSpec. Used by `kleval eval --config` and `kleval.evaluate(config=...)`.

The sampling defaults are SamplingParams' own (kleval.types), so the CLI, the Python API and a
bare SamplingParams() always agree.
"""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any, Mapping

from kleval.errors import ConfigError
from kleval.types import SamplingParams

_SAMPLING = {f.name: getattr(SamplingParams(), f.name) for f in fields(SamplingParams) if f.name != "stop"}

# Every key a study spec or an explicit setting may give, with its default.
DEFAULTS: dict[str, Any] = {
    "tasks": None, "k": [1], **_SAMPLING, "limit": None, "backend": "hf", "out": None, "chunk_size": None,
    "data_dir": None, "tokenizer": None, "trainer_config": None, "tensor_parallel_size": None, "dtype": None,
    "device": None, "max_model_len": None, "verify_timeout": 10.0, "verify_workers": None, "checkpoints": None,
    "backend_options": {},
    # backend flags (docs/integrations.md); an API key is never a setting: it would land in study.json
    "base_url": None, "served_model_name": None, "gpu_memory_utilization": None, "enforce_eager": None,
    "engine_args": None,
}
# Settings that become backend options of the same name.
OPTION_SETTINGS = ("tensor_parallel_size", "dtype", "device", "max_model_len", "base_url", "gpu_memory_utilization",
                   "enforce_eager")
REQUIRED = ("checkpoints", "tasks", "out")


def load_study_spec(path: str | Path) -> dict[str, Any]:
    """The settings of a study spec TOML; ConfigError for a missing file, bad TOML or unknown keys."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    path = Path(path)
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"study spec {path} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"study spec {path}: invalid TOML ({exc})") from None
    spec.pop("description", None)
    unknown = sorted(set(spec) - set(DEFAULTS))
    if unknown:
        raise ConfigError(f"study spec {path}: unknown keys {unknown}; allowed: {sorted(DEFAULTS)}")
    return spec


def resolve_settings(config: str | Path | None, explicit: Mapping[str, Any],
                     required: tuple[str, ...] = REQUIRED) -> dict[str, Any]:
    """Defaults < the study spec at `config` (if any) < explicit settings (None values ignored)."""
    unknown = sorted(set(explicit) - set(DEFAULTS))
    if unknown:
        raise ConfigError(f"unknown study settings {unknown}; allowed: {sorted(DEFAULTS)}")
    settings = dict(DEFAULTS)
    if config:
        settings.update(load_study_spec(config))
    settings.update({k: v for k, v in explicit.items() if v is not None})
    for name in required:
        if not settings.get(name):
            raise ConfigError(f"--{name} is required (on the command line or in the --config study spec)")
    return settings


def build_eval_spec(settings: Mapping[str, Any]):
    """The EvalSpec of resolved settings (backend flags folded into backend_options)."""
    from kleval.eval.run import EvalSpec

    from kleval.backends.common import parse_engine_args, stash_api_key

    options = dict(settings["backend_options"])
    stash_api_key(options.pop("api_key", None))  # from a spec's or the API's options: out of study.json
    for key in OPTION_SETTINGS:
        if settings[key] is not None:
            options[key] = settings[key]
    if settings["engine_args"]:
        options["engine_kwargs"] = {**options.get("engine_kwargs", {}), **parse_engine_args(settings["engine_args"])}
    tasks = settings["tasks"]
    tasks = [t.strip() for t in tasks.split(",") if t.strip()] if isinstance(tasks, str) else list(tasks)
    ks = settings["k"]
    return EvalSpec(
        tasks=tuple(tasks),
        sampling=SamplingParams(**{name: settings[name] for name in _SAMPLING}),
        ks=(ks,) if isinstance(ks, int) else tuple(ks), limit=settings["limit"], backend=settings["backend"],
        backend_options=options, chunk_size=(512 if settings["backend"] == "vllm" else 32) if settings["chunk_size"] is None else settings["chunk_size"],
        data_dir=None if settings["data_dir"] is None else str(settings["data_dir"]),
        verify_timeout_s=settings["verify_timeout"],
        **({"verify_workers": settings["verify_workers"]} if settings["verify_workers"] is not None else {}),
    )
