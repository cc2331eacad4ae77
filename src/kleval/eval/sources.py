"""What a user may name after `--checkpoints`, turned into Checkpoints.

Tried in this order for each item:

1. `NAME=PATH`: the model is called NAME (its label; for the openai backend also the name the
   server serves it under) and PATH holds its tokenizer and training metadata;
2. a local path or glob (a model directory, a run directory of step directories; see
   `kleval.eval.checkpoints.discover`);
3. a bundled path (`assets/tiny-arith-base`) when nothing exists at that relative path;
4. a Hugging Face hub id (`Qwen/Qwen2.5-Math-1.5B`, optionally `@REVISION`), read from the local
   HF cache first (the only place looked at with HF_HUB_OFFLINE=1), downloaded otherwise;
5. with the openai backend only: a served model name the server knows and this machine does not.
"""
from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from kleval.errors import CheckpointError, ConfigError

HUB_ID = re.compile(r"^(?P<repo>[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*)(?:@(?P<revision>[\w./-]+))?$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# What evaluation needs from a hub repository (no optimizer states, no other formats).
HUB_FILES = ("*.json", "*.safetensors", "*.jinja", "tokenizer.model", "*.txt", "*.tiktoken")


def resolve_checkpoints(specs: str | Sequence[str], *, backend: str = "hf", tokenizer: str | None = None,
                        trainer_config=None, served_model_name: str | None = None,
                        cache_dir: str | os.PathLike[str] | None = None):
    """Checkpoints for every item of `specs` (see the module docstring), with unique labels."""
    items = [specs] if isinstance(specs, (str, os.PathLike)) else list(specs)
    if not items:
        raise ConfigError("no checkpoints given")
    if served_model_name:
        if len(items) != 1:
            raise ConfigError("--served-model-name names one model; for several use NAME=PATH in --checkpoints")
        items = [f"{served_model_name}={items[0]}"]
    from kleval.eval.checkpoints import discover
    from kleval.resources import locate

    # Plain paths are discovered together, so their order and labels are discover()'s own.
    local = [str(locate(str(i))) for i in items if _is_local(str(i))]
    found = discover(local, tokenizer=tokenizer, trainer_config=trainer_config) if local else []
    for item in items:
        if not _is_local(str(item)):
            found.extend(_resolve_one(str(item), backend, tokenizer, cache_dir, trainer_config))
    return _unique_labels(found)


def _is_local(spec: str) -> bool:
    from kleval.resources import locate

    return _is_glob(spec) or locate(spec).exists()


def _resolve_one(spec: str, backend: str, tokenizer: str | None, cache_dir, trainer_config=None) -> list:
    from kleval.eval.checkpoints import discover
    from kleval.resources import locate

    if "=" in spec and not Path(spec).exists():
        name, _, local = spec.partition("=")
        if not name or not local:
            raise ConfigError(f"--checkpoints {spec!r}: expected NAME=PATH")
        found = _resolve_one(local, backend, tokenizer, cache_dir, trainer_config)
        if len(found) != 1:
            raise ConfigError(f"--checkpoints {spec!r}: {local} holds {len(found)} checkpoints; NAME=PATH needs one")
        ckpt = found[0]
        return [replace(ckpt, label=_safe(name), path=Path(name) if backend == "openai" else ckpt.path)]
    local = locate(spec)
    if local.exists() or _is_glob(spec):
        return discover([str(local)], tokenizer=tokenizer, trainer_config=trainer_config)
    hub = HUB_ID.match(spec)
    if hub:
        snapshot = hub_snapshot(hub["repo"], hub["revision"], weights=backend != "openai", cache_dir=cache_dir)
        if snapshot is not None:
            ckpts = (discover([str(snapshot)], tokenizer=tokenizer, trainer_config=trainer_config)
                     if backend != "openai" else [])
            if ckpts:
                return [replace(ckpts[0], label=_safe(hub["repo"].split("/")[-1]), run=hub["repo"])]
            return [_served(spec, hub["repo"], tokenizer or str(snapshot))]
    if backend == "openai":
        return [_served(spec, spec, tokenizer)]
    if hub:
        raise CheckpointError(
            f"checkpoint {spec} is not a local path, and the hub model {hub['repo']} is not in the local "
            f"Hugging Face cache{' (HF_HUB_OFFLINE=1)' if _offline() else ''}; download it first with "
            f"`hf download {hub['repo']}` or give a model directory")
    raise CheckpointError(f"checkpoint path {spec} does not exist")


def hub_snapshot(repo: str, revision: str | None, *, weights: bool = True, cache_dir=None) -> Path | None:
    """The local snapshot directory of a hub model: from the HF cache, else downloaded unless offline.

    None when it is neither cached nor downloadable. With weights=False only config and
    tokenizer files are needed (a served model whose server holds the weights)."""
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError:
        return None
    patterns = list(HUB_FILES) if weights else ["*.json", "*.jinja", "tokenizer.model", "*.txt", "*.tiktoken"]
    kwargs = {"repo_id": repo, "revision": revision, "allow_patterns": patterns,
              "cache_dir": None if cache_dir is None else str(cache_dir)}
    try:
        path = Path(snapshot_download(local_files_only=True, **kwargs))
    except (LocalEntryNotFoundError, OSError, ValueError):
        path = None
    if path is not None and (path / "config.json").is_file():
        return path
    if _offline():
        return None
    try:
        return Path(snapshot_download(**kwargs))
    except Exception as exc:  # the hub raises many types (HTTP, auth, repo not found); say which
        raise CheckpointError(f"could not download {repo} from the Hugging Face hub: "
                              f"{(str(exc).strip().splitlines() or [type(exc).__name__])[0]}") from None


def _served(spec: str, served_name: str, tokenizer: str | None):
    """A model only the openai server holds: it is called by name, with no local files."""
    from kleval.eval.checkpoints import Checkpoint

    return Checkpoint(path=Path(served_name), label=_safe(served_name.split("/")[-1]), format="served",
                      step=None, run=None, tokenizer_path=tokenizer or "")


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def _is_glob(spec: str) -> bool:
    import glob

    return glob.has_magic(spec)


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name).strip("._") or "model"


def _unique_labels(checkpoints: list) -> list:
    taken: set[str] = set()
    result = []
    for ckpt in checkpoints:
        label, k = ckpt.label, 2
        while label in taken:
            label, k = f"{ckpt.label}-{k}", k + 1
        taken.add(label)
        result.append(ckpt if label == ckpt.label else replace(ckpt, label=label))
    return result
