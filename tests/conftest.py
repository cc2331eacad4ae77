"""Shared fixtures: real tiny checkpoints built on the spot and the offline benchmark data."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


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
