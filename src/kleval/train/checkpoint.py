"""Step checkpoints: RUN_DIR/global_step_N/ with HF weights, tokenizer and kleval_run.json.

kleval_run.json = {"kleval_version", "step", "seed", "git_revision", "preset", "config"} where
config is TrainConfig.to_dict() (KL block included). trainer_state.pt (optimizer state, full
even under FSDP; `rank_rng`: every rank's RNG states) is kept only in the latest step directory, which is what resume needs; older step directories
stay loadable by `kleval eval` as plain HF checkpoints.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kleval.errors import CheckpointError
from kleval.eval.study import git_revision

STEP_DIR = re.compile(r"^global_step_(\d+)$")
RUN_FILE = "kleval_run.json"
STATE_FILE = "trainer_state.pt"


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
    import torch

    directory = run_dir / f"global_step_{step}"
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory, state_dict=weights)
    tokenizer.save_pretrained(directory)
    write_run_file(directory, config, step)
    torch.save(trainer_state, directory / f"{STATE_FILE}.tmp")
    (directory / f"{STATE_FILE}.tmp").replace(directory / STATE_FILE)
    for other_step, other in step_dirs(run_dir):
        if other_step != step and (other / STATE_FILE).exists():
            (other / STATE_FILE).unlink()
    return directory


def latest_resumable(run_dir: Path) -> tuple[int, Path] | None:
    """The newest step directory that holds trainer state, or None for a fresh run."""
    for step, path in reversed(step_dirs(run_dir)):
        if (path / STATE_FILE).exists() and (path / RUN_FILE).exists():
            return step, path
    return None


def load_run_file(directory: Path) -> dict[str, Any]:
    path = Path(directory) / RUN_FILE
    if not path.exists():
        raise CheckpointError(f"{directory} has no {RUN_FILE}; it was not written by `kleval train`")
    return json.loads(path.read_text())


def load_trainer_state(directory: Path) -> dict:
    import torch

    state = torch.load(Path(directory) / STATE_FILE, weights_only=False)
    if "rank_rng" not in state:  # written before per-rank RNG states: rank 0's streams only
        state["rank_rng"] = [{key: state[key] for key in ("prompt_rng", "sampler", "torch_rng")}]
    return state
