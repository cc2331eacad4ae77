"""Helpers every backend shares: chat formatting, stop-string truncation, per-sample seeds, options.

Keeping these in one place means the hf, vllm and openai backends agree on what a completion's
text, finish reason and seed are, so switching backend changes the engine, not the semantics.
"""
from __future__ import annotations

import hashlib
import os
from typing import Any, Mapping, Sequence

from kleval.errors import ConfigError

THINK_END = "</think>"


def apply_chat(tokenizer, prompts: Sequence[str], chat: bool) -> list[str]:
    """Wrap each prompt as one user turn with the tokenizer's chat template, when asked and possible.

    Returns plain strings; the template already holds any special tokens it needs, so callers
    must encode them without adding special tokens again.
    """
    if not chat or not getattr(tokenizer, "chat_template", None):
        return list(prompts)
    return [
        tokenizer.apply_chat_template(
            [{"role": "user", "content": p}], tokenize=False, add_generation_prompt=True
        )
        for p in prompts
    ]


def truncate_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """Cut `text` before the earliest occurrence of any stop string; say whether one was found."""
    cut = -1
    for s in stop:
        if not s:
            continue
        i = text.find(s)
        if i != -1 and (cut == -1 or i < cut):
            cut = i
    if cut == -1:
        return text, False
    return text[:cut], True


def strip_reasoning(text: str, marker: str = THINK_END) -> str:
    """Drop everything up to and including the last reasoning end marker (e.g. `</think>`)."""
    i = text.rfind(marker)
    return text if i == -1 else text[i + len(marker):].lstrip()


def sample_seed(seed: int, prompt: str, sample_index: int) -> int:
    """A 63-bit seed for one (prompt, sample index) under a run seed.

    It depends on the prompt text, not its position, so a sample does not change when the
    prompts are chunked, reordered or batched differently.
    """
    h = hashlib.blake2b(digest_size=8)
    h.update(f"{int(seed)}\x00{int(sample_index)}\x00".encode())
    h.update(prompt.encode("utf-8", "surrogatepass"))
    return int.from_bytes(h.digest(), "little") & ((1 << 63) - 1)


def check_options(backend: str, options: Mapping[str, Any], allowed: Sequence[str]) -> None:
    """Refuse option names a backend does not know, listing the ones it does."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ConfigError(
            f"backend {backend!r} does not take option(s) {', '.join(unknown)}; "
            f"known options: {', '.join(sorted(allowed))}"
        )


def cache_argument(model) -> str:
    """The name of a transformers model's KV-cache forward argument: transformers 5.x renamed
    `past_key_values` to `cache` (the old name still works but warns)."""
    import inspect

    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


API_KEY_ENV = "KLEVAL_API_KEY"


def stash_api_key(api_key: str | None) -> None:
    """Hand an API key to the openai backend through this process's environment ($KLEVAL_API_KEY),
    so it never travels in backend options, which are recorded in study.json."""
    if api_key:
        os.environ[API_KEY_ENV] = str(api_key)


def parse_engine_args(pairs: Sequence[str]) -> dict[str, Any]:
    """`KEY=VALUE` strings into engine keyword arguments; VALUE is JSON when it parses (8, 0.5,
    true, {"a": 1}), else the plain string."""
    import json

    parsed: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = str(pair).partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise ConfigError(f"--engine-arg {pair!r}: expected KEY=VALUE with KEY a vllm.LLM argument name")
        try:
            parsed[key] = json.loads(raw)
        except json.JSONDecodeError:
            parsed[key] = raw
    return parsed


def check_device(device: str) -> None:
    """Refuse a CUDA device this torch cannot use, in one line (before any model is loaded)."""
    if not device.startswith("cuda"):
        return
    import torch

    if torch.version.cuda is None:
        raise ConfigError(f"--device {device}: this torch ({torch.__version__}) is a CPU-only build; "
                          "use --device cpu or install a CUDA build of torch")
    if not torch.cuda.is_available():
        raise ConfigError(f"--device {device}: no CUDA GPU is visible (CUDA_VISIBLE_DEVICES="
                          f"{os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')}); use --device cpu")
    index = device.partition(":")[2]
    if index.isdigit() and int(index) >= torch.cuda.device_count():
        raise ConfigError(f"--device {device}: only {torch.cuda.device_count()} CUDA device(s) are visible")


def output_cache(output):
    """A model output's KV cache under its current name: transformers 5.x calls it `cache` (reading
    `past_key_values` still works but warns once per process)."""
    fields = getattr(output, "__dataclass_fields__", {})
    return output.cache if "cache" in fields else output.past_key_values
