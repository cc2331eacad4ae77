"""Step checkpoints: RUN_DIR/global_step_N/ with HF weights, tokenizer and kleval_run.json.

kleval_run.json = {"kleval_version", "step", "seed", "git_revision", "preset", "config"} where
config is TrainConfig.to_dict() (KL block included). The resumable trainer state (optimizer
state, full even under FSDP; `rank_rng`: every rank's RNG states; counters) is kept only in the
latest step directory, which is what resume needs; older step directories stay loadable by
`kleval eval` as plain HF checkpoints.

The state is stored in formats that cannot run code, because a run directory may come from
anyone: its tensors in trainer_state.safetensors, everything else (numbers, strings, lists,
tuples, dicts with int keys) in trainer_state.json, where each tensor is a {"$tensor": key}
placeholder. The JSON file is written last and is the commit mark: a step directory without it
is not resumable. A pickled trainer_state.pt (older kleval, or planted) is refused, never loaded.
`run_lock` keeps two `kleval train` from writing one run directory at once.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

from kleval.errors import CheckpointError
from kleval.eval.study import directory_lock, git_revision

STEP_DIR = re.compile(r"^global_step_(\d+)$")
RUN_FILE = "kleval_run.json"
STATE_FILE = "trainer_state.json"  # the commit mark; tensors live in TENSOR_FILE beside it
TENSOR_FILE = "trainer_state.safetensors"
PICKLED_STATE = "trainer_state.pt"  # written by kleval before 2026-12; never loaded


def run_metadata(config, step: int) -> dict[str, Any]:
    from kleval import __version__

    return {
        "kleval_version": __version__,
        "step": step,
        "seed": config.seed,
        "git_revision": git_revision(),
        "preset": config.preset,
        "config": config.to_dict(),
    }


def write_run_file(directory: Path, config, step: int) -> None:
    (directory / RUN_FILE).write_text(json.dumps(run_metadata(config, step), indent=2) + "\n")


def step_dirs(run_dir: Path) -> list[tuple[int, Path]]:
    """(step, path) of every global_step_N directory, sorted by step."""
    if not run_dir.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in run_dir.iterdir() if (m := STEP_DIR.match(p.name)) and p.is_dir()]
    return sorted(found)


def save_checkpoint(run_dir: Path, step: int, model, tokenizer, config, trainer_state: dict, *,
                    weights: dict | None = None) -> Path:
    """Write global_step_<step>/ and move the resumable trainer state into it.

    weights: the full state dict to write instead of model.state_dict() (FSDP gathers it first).
    """
    directory = run_dir / f"global_step_{step}"
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory, state_dict=weights)
    tokenizer.save_pretrained(directory)
    write_run_file(directory, config, step)
    save_trainer_state(directory, trainer_state)
    for other_step, other in step_dirs(run_dir):
        if other_step != step:
            for name in (STATE_FILE, TENSOR_FILE):
                (other / name).unlink(missing_ok=True)
    return directory


def save_trainer_state(directory: Path, state: dict) -> None:
    """Tensors to TENSOR_FILE, the rest to STATE_FILE (written last, atomically: the commit mark)."""
    from safetensors.torch import save_file

    tensors: dict[str, Any] = {}
    encoded = _encode(state, tensors)
    (directory / STATE_FILE).unlink(missing_ok=True)  # uncommitted while the tensors change
    save_file(tensors, str(directory / f"{TENSOR_FILE}.tmp"))
    os.replace(directory / f"{TENSOR_FILE}.tmp", directory / TENSOR_FILE)
    text = json.dumps({"format": 1, "tensor_keys": sorted(tensors), "state": encoded}) + "\n"
    (directory / f"{STATE_FILE}.tmp").write_text(text, encoding="utf-8")
    os.replace(directory / f"{STATE_FILE}.tmp", directory / STATE_FILE)


def latest_resumable(run_dir: Path) -> tuple[int, Path] | None:
    """The newest step directory that holds trainer state, or None for a fresh run.

    A pickled trainer_state.pt newer than any safe state is refused (CheckpointError), never read.
    """
    for step, path in reversed(step_dirs(run_dir)):
        if (path / STATE_FILE).exists() and (path / RUN_FILE).exists():
            return step, path
        if (path / PICKLED_STATE).exists():
            raise CheckpointError(
                f"{path / PICKLED_STATE} is a pickle, which can run code, so kleval does not load it; "
                f"resume state is now {STATE_FILE} + {TENSOR_FILE}. Start the run in a new --out "
                f"(its global_step_* weights stay usable as --model)")
    return None


def load_run_file(directory: Path) -> dict[str, Any]:
    path = Path(directory) / RUN_FILE
    if not path.exists():
        raise CheckpointError(f"{directory} has no {RUN_FILE}; it was not written by `kleval train`")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path}: not valid JSON ({exc})") from None


def load_trainer_state(directory: Path) -> dict:
    """The state saved by save_trainer_state; anything malformed is a one-line CheckpointError."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    directory = Path(directory)
    try:
        header = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        tensors = load_file(str(directory / TENSOR_FILE))
    except FileNotFoundError as exc:
        raise CheckpointError(f"{directory}: resume state incomplete ({Path(exc.filename).name} missing)") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{directory / STATE_FILE}: not valid JSON ({exc})") from None
    except (SafetensorError, OSError) as exc:
        raise CheckpointError(f"{directory / TENSOR_FILE}: unreadable ({exc}); the run cannot resume from this step") from None
    if not isinstance(header, dict) or header.get("format") != 1 or set(header.get("tensor_keys", ())) != set(tensors):
        raise CheckpointError(f"{directory / STATE_FILE} does not match {TENSOR_FILE} (format or tensor keys differ)")
    state = _decode(header["state"], tensors, directory)
    if not isinstance(state, dict) or "optimizer" not in state or "rank_rng" not in state:
        raise CheckpointError(f"{directory / STATE_FILE}: no optimizer or rank_rng entry; not kleval trainer state")
    return state


# -- a JSON encoding for nested state with tensors -------------------------------------------------


def _encode(value: Any, tensors: dict[str, Any]) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        key = f"t{len(tensors)}"
        tensors[key] = value.detach().cpu().contiguous().clone()  # safetensors refuses shared storage
        return {"$tensor": key}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"$tuple": [_encode(v, tensors) for v in value]}
    if isinstance(value, list):
        return [_encode(v, tensors) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: _encode(v, tensors) for k, v in value.items()}
        if all(isinstance(k, (str, int)) for k in value):
            return {"$items": [[k, _encode(v, tensors)] for k, v in value.items()]}
    raise TypeError(f"trainer state cannot hold {type(value).__name__} values (tensors, numbers, strings, "
                    "lists, tuples and dicts only)")


def _decode(value: Any, tensors: dict[str, Any], where: Path) -> Any:
    if isinstance(value, list):
        return [_decode(v, tensors, where) for v in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"$tensor"}:
        if value["$tensor"] not in tensors:
            raise CheckpointError(f"{where / STATE_FILE} names tensor {value['$tensor']!r}, absent from {TENSOR_FILE}")
        return tensors[value["$tensor"]]
    if set(value) == {"$tuple"}:
        return tuple(_decode(v, tensors, where) for v in value["$tuple"])
    if set(value) == {"$items"}:
        return {k: _decode(v, tensors, where) for k, v in value["$items"]}
    return {k: _decode(v, tensors, where) for k, v in value.items()}


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run directory for one `kleval train`; a second one is refused with the reason.
    An OS lock (flock), so a killed run never leaves it stale."""
    with directory_lock(Path(run_dir), "another `kleval train` is writing to this run directory"):
        yield
