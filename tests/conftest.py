"""Shared fixtures: real tiny checkpoints built on the spot and the offline benchmark data."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# `make test` runs the suite on pytest-xdist workers (`-n 2` in pyproject.toml). Each worker, and the
# kleval / torchrun children its tests start (they inherit the variable), gets its share of the cores
# as torch intra-op threads: two workers with two threads each on 2 cores oversubscribe the CPU, and
# then every op waits for both its threads to be scheduled (see tests/real/conftest.py). Training
# pins its own thread count (TrainConfig.threads); an explicit OMP_NUM_THREADS is kept.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0)
if _WORKERS > 1 and "OMP_NUM_THREADS" not in os.environ:
    os.environ["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // _WORKERS))
    if "torch" in sys.modules:  # a plugin imported it before this file: its pool follows the variable too
        sys.modules["torch"].set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The offline copies of the benchmarks (../shared/data beside the project)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"offline benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> Path:
    """A real, randomly initialised tiny Llama with a byte-level BPE tokenizer, saved to disk."""
    from kleval.tiny import build_tiny_checkpoint

    return build_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "model", seed=0)


@pytest.fixture(scope="session")
def tiny_char_checkpoint(tmp_path_factory) -> Path:
    """A tiny Llama with a character-level tokenizer (digits and operators), for arithmetic."""
    from kleval.tiny import build_tiny_checkpoint

    return build_tiny_checkpoint(
        tmp_path_factory.mktemp("tinychar") / "model", alphabet=list("0123456789+-*= ")
    )
