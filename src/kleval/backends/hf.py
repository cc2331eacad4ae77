"""The transformers backend: batched, seeded sampling on CPU or GPU with a small decode loop.

Why not `model.generate`: its per-call set-up dominates at tiny-model size, and it draws all
samples from one global RNG, so a sample would change with the batch it happens to land in.
Here every (prompt, sample index) row owns a random stream seeded from (seed, prompt text,
sample index), and tokens are drawn by inverse-CDF sampling from that stream. What this
guarantees, and what it cannot, is written in docs/backends.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from kleval.backends.common import (
    cache_argument,
    apply_chat,
    check_options,
    sample_seed,
    strip_reasoning,
    truncate_at_stop,
)
from kleval.errors import CheckpointError, ConfigError
from kleval.types import Completion, SamplingParams

OPTIONS = ("device", "dtype", "batch_size", "max_model_len", "attn_implementation", "strip_think",
           "trust_remote_code")
_STOP_WINDOW_EXTRA = 8  # tokens decoded beyond the longest stop string when checking a tail


@dataclass
class _Row:
    """One sequence to generate: prompt index, sample index, prompt token ids, its seed."""

    prompt_index: int
    sample_index: int
    prompt_ids: list[int]
    seed: int


def _resolve_dtype(torch, dtype: str, device: str):
    if dtype == "auto":
        if device.startswith("cuda") and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    table = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if dtype not in table:
        raise ConfigError(f"dtype must be auto, float32, bfloat16 or float16, got {dtype!r}")
    return table[dtype]


class HFBackend:
    """Generation with a transformers causal LM; see the module docstring for the sampling scheme."""

    name = "hf"

    def __init__(self, model_path: str | Path, *, tokenizer_path: str | Path | None = None, **options: Any):
        check_options(self.name, options, OPTIONS)
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self._torch = torch
        device = options.get("device", "auto")
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        try:
            self.device = torch.device(device)
        except RuntimeError:
            raise ConfigError(f"unknown device {device!r}; use cpu, cuda or cuda:N") from None
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise ConfigError(f"--device {device}: this torch {torch.__version__} has no usable CUDA; "
                              "use --device cpu or install a CUDA build of torch")
        self.batch_size = int(options.get("batch_size", 64))
        if self.batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {self.batch_size}")
        self.strip_think = bool(options.get("strip_think", False))
        tok_path = Path(tokenizer_path or model_path)
        if not (tok_path / "tokenizer_config.json").is_file() and not (tok_path / "tokenizer.json").is_file():
            raise CheckpointError(f"no tokenizer files in {tok_path}; pass a tokenizer path (--tokenizer)")
        trust = bool(options.get("trust_remote_code", False))
        self.tokenizer = AutoTokenizer.from_pretrained(str(tok_path), trust_remote_code=trust)
        load_kwargs: dict[str, Any] = {"dtype": _resolve_dtype(torch, options.get("dtype", "auto"), device)}
        if options.get("attn_implementation"):
            load_kwargs["attn_implementation"] = options["attn_implementation"]
        from safetensors import SafetensorError

        try:
            model = AutoModelForCausalLM.from_pretrained(str(model_path), trust_remote_code=trust, **load_kwargs)
        except (OSError, ValueError, RuntimeError, SafetensorError) as exc:  # RuntimeError: shapes off config.json
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if isinstance(exc, RuntimeError) and "mismatched" in str(exc):
                detail = "the weights' shapes do not match config.json (truncated, edited or another model's weights)"
            raise CheckpointError(f"cannot load model from {model_path}: {detail}") from None
        self.model = model.to(self.device).eval()
        config = self.model.config
        self.max_model_len = int(options.get("max_model_len") or getattr(config, "max_position_embeddings", 0) or 1 << 30)
        self.eos_ids = self._eos_ids()
        pad = self.tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else next(iter(self.eos_ids), 0)
        self.vocab_limit = len(self.tokenizer)
        self._cache_arg = cache_argument(self.model)

    def _eos_ids(self) -> set[int]:
        ids: set[int] = set()
        for source in (self.tokenizer.eos_token_id, getattr(self.model.generation_config, "eos_token_id", None)):
            if isinstance(source, int):
                ids.add(source)
            elif source:
                ids.update(int(i) for i in source)
        return ids

    # ---- public API -----------------------------------------------------------------------

    def generate(self, prompts: Sequence[str], params: SamplingParams, *, chat: bool = False) -> list[list[Completion]]:
        texts = apply_chat(self.tokenizer, prompts, chat)
        templated = chat and bool(getattr(self.tokenizer, "chat_template", None))
        encoded = self.tokenizer(texts, add_special_tokens=not templated)["input_ids"]
        rows = [
            _Row(i, j, list(ids), sample_seed(params.seed, text, j))
            for i, (text, ids) in enumerate(zip(texts, encoded))
            for j in range(params.n)
        ]
        for row in rows:
            if len(row.prompt_ids) >= self.max_model_len:
                raise ConfigError(
                    f"a prompt of {len(row.prompt_ids)} tokens does not fit the model context of "
                    f"{self.max_model_len} tokens; shorten it or raise max_model_len"
                )
        # Longest prompts first so each chunk holds similar lengths (less padding); rows are
        # independent, so order does not change any sample.
        order = sorted(range(len(rows)), key=lambda r: -len(rows[r].prompt_ids))
        results: list[list[Completion | None]] = [[None] * params.n for _ in prompts]
        for start in range(0, len(order), self.batch_size):
            chunk = [rows[r] for r in order[start:start + self.batch_size]]
            for row, completion in zip(chunk, self._generate_chunk(chunk, params)):
                results[row.prompt_index][row.sample_index] = completion
        return results  # type: ignore[return-value]

    def close(self) -> None:
        self.model = None
        if self._torch.cuda.is_available():
            self._torch.cuda.empty_cache()

    # ---- decoding ---------------------------------------------------------------------------

    def _generate_chunk(self, rows: list[_Row], params: SamplingParams) -> list[Completion]:
        torch = self._torch
        from transformers import DynamicCache

        count = len(rows)
        width = max(len(r.prompt_ids) for r in rows)
        limits = [min(params.max_tokens, self.max_model_len - len(r.prompt_ids)) for r in rows]
        input_ids = torch.full((count, width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((count, width), dtype=torch.long)
        for k, row in enumerate(rows):  # left padding: real tokens end at the right edge
            input_ids[k, width - len(row.prompt_ids):] = torch.tensor(row.prompt_ids)
            attention[k, width - len(row.prompt_ids):] = 1
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        uniforms = None
        if params.temperature > 0:
            steps = max(limits)
            uniforms = torch.stack([
                torch.rand(steps, generator=torch.Generator().manual_seed(r.seed), dtype=torch.float64)
                for r in rows
            ]).to(self.device)  # [count, steps]: row k's draw for its t-th token
        input_ids, attention, positions = (t.to(self.device) for t in (input_ids, attention, positions))

        tokens: list[list[int]] = [[] for _ in rows]
        finish: list[str | None] = [None] * count
        active = list(range(count))  # chunk indices of rows still in the batch, in batch order
        cache = DynamicCache(config=self.model.config)
        stop_window = max((len(s) for s in params.stop), default=0) + _STOP_WINDOW_EXTRA
        with torch.inference_mode():
            logits = self._forward(input_ids, attention, positions, cache)
            step = 0
            while True:
                draws = uniforms[active, step] if uniforms is not None else None
                chosen = self._choose(logits, params, draws)
                still: list[int] = []
                for k, tok in zip(active, chosen.tolist()):
                    tokens[k].append(tok)
                    if tok in self.eos_ids:
                        finish[k] = "stop"
                    elif len(tokens[k]) >= limits[k]:
                        finish[k] = "length"
                    else:
                        still.append(k)
                if params.stop and still:
                    still = self._drop_stopped(still, tokens, finish, params.stop, stop_window)
                if not still:
                    break
                if len(still) < len(active):
                    keep = torch.tensor([active.index(k) for k in still], device=self.device)
                    cache.batch_select_indices(keep)
                    chosen, attention, positions = chosen[keep], attention[keep], positions[keep]
                    active = still
                attention = torch.cat([attention, attention.new_ones((len(active), 1))], dim=1)
                positions = positions[:, -1:] + 1
                logits = self._forward(chosen[:, None], attention, positions, cache)
                step += 1
        return [self._completion(rows[k], tokens[k], finish[k], params) for k in range(count)]

    def _forward(self, input_ids, attention, positions, cache):
        out = self.model(
            input_ids=input_ids,
            attention_mask=attention,
            position_ids=positions,
            use_cache=True,
            logits_to_keep=1,
            **{self._cache_arg: cache},
        )
        logits = out.logits[:, -1, :].float()  # [batch, vocab]
        if logits.shape[-1] > self.vocab_limit:  # padded embedding rows are not real tokens
            logits[:, self.vocab_limit:] = float("-inf")
        return logits

    def _choose(self, logits, params: SamplingParams, draws):
        """Pick one token per row: argmax at temperature 0, else inverse-CDF with the row's draw."""
        torch = self._torch
        if draws is None:
            return logits.argmax(dim=-1)
        probs = torch.softmax(logits / params.temperature, dim=-1).double()  # [batch, vocab]
        if params.top_p < 1.0:
            sorted_probs, sorted_ids = probs.sort(dim=-1, descending=True, stable=True)
            mass_before = sorted_probs.cumsum(dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(mass_before >= params.top_p, 0.0)
            cdf = sorted_probs.cumsum(dim=-1)
            pick = torch.searchsorted(cdf, (draws * cdf[:, -1])[:, None], right=True)
            pick = pick.clamp(max=cdf.shape[-1] - 1)
            return sorted_ids.gather(1, pick).squeeze(1)
        cdf = probs.cumsum(dim=-1)
        pick = torch.searchsorted(cdf, (draws * cdf[:, -1])[:, None], right=True)
        return pick.clamp(max=cdf.shape[-1] - 1).squeeze(1)

    def _drop_stopped(self, still, tokens, finish, stop, window) -> list[int]:
        tails = self.tokenizer.batch_decode([tokens[k][-window:] for k in still], skip_special_tokens=True)
        remaining = []
        for k, tail in zip(still, tails):
            if any(s and s in tail for s in stop):
                finish[k] = "stop"
            else:
                remaining.append(k)
        return remaining

    def _completion(self, row: _Row, tokens: list[int], finish: str | None, params: SamplingParams) -> Completion:
        text = self.tokenizer.decode(tokens, skip_special_tokens=True)
        text, hit = truncate_at_stop(text, params.stop)
        if hit:
            finish = "stop"
        if self.strip_think:
            text = strip_reasoning(text)
        return Completion(text=text, num_tokens=len(tokens), prompt_tokens=len(row.prompt_ids),
                          finish_reason=finish or "length")
