"""Real models from files users have: GGUF discovery, one-time conversion and a hash-keyed cache."""

from kleval.models.gguf import (
    GGUF_SUFFIX,
    cache_root,
    convert_gguf,
    is_gguf_file,
    smollm2_gguf_file,
    smollm2_path,
)

__all__ = [
    "GGUF_SUFFIX",
    "cache_root",
    "convert_gguf",
    "is_gguf_file",
    "smollm2_gguf_file",
    "smollm2_path",
]
