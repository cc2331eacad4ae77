"""Log-probs of sampled responses with bounded memory: micro-batches of rows, chunks of positions.

At a real vocabulary (V = 151,936) a full log-softmax of one batch is [B, T, V] floats: 32 rows
x 1,024 tokens is 20 GB per tensor. Nothing here builds one. The rows go through the model in
micro-batches of `micro_batch` rows, and the last step (hidden state -> logits -> log-softmax ->
the chosen token's log-prob, and the full-vocabulary KL / entropy diagnostics) runs over chunks of
positions sized to `chunk_mb` megabytes of fp32 logits. With gradient, each chunk is wrapped in
activation checkpointing: its logits are recomputed in backward instead of kept, so the memory of
one micro-batch is its transformer activations plus one chunk of [micro_batch, positions, V].

Two ways to reach the logits:
- "head" (unsharded models): the decoder's final hidden states [m, T, H], then the output
  embedding (+ Gemma-style soft-capping) per chunk. Checked once per model against the model's own
  logits on a few tokens; a model whose head does something else falls back to:
- "logits" (FSDP, or that fallback): the model's forward returns [m, T, V] logits of the
  micro-batch (only the response positions, `logits_to_keep`); log-softmax per chunk.

Rows of one prompt (contiguous, unpadded within the micro-batch) share the prompt's KV cache: the
prompt runs once, the responses on top of it (same logits as a full forward; tested). Under FSDP
every forward is a collective, so whether a micro-batch takes that two-forward path is agreed by
all ranks (`agree_on_sharing`), never decided per rank.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from kleval.backends.common import cache_argument
from kleval.train.rollout import RolloutBatch, output_cache

HEAD_CHECK_TOLERANCE = 1e-3


@dataclass(frozen=True)
class ScoringSettings:
    """How to cut the work: rows per forward, megabytes of fp32 logits per chunk, and the rest."""

    micro_batch: int
    chunk_mb: int = 256
    temperature: float = 1.0
    autocast_bf16: bool = False  # bf16 autocast of the forward over fp32 weights
    share_prompts: bool = True  # off under activation checkpointing (it disables the KV cache)


def micro_batches(batch: RolloutBatch, size: int) -> list[tuple[slice, RolloutBatch]]:
    """(row slice, rows) of every micro-batch; each drops the left-padding columns its rows share."""
    rows = batch.response_ids.shape[0]
    return [(slice(start, min(start + size, rows)), batch.rows(slice(start, min(start + size, rows))).trimmed())
            for start in range(0, rows, max(size, 1))]


def shared_prompt_group(rows: RolloutBatch) -> int:
    """Rows per prompt when every prompt of these rows has the same number of contiguous rows and no
    padding, and responses are at least 2 tokens wide (the shared path's second forward runs
    tokens 0 .. T - 2); else 1 (one full forward)."""
    index = rows.prompt_index
    group = next((i for i, r in enumerate(index) if r != index[0]), len(index))
    if group < 2 or len(index) % group or rows.response_ids.shape[1] < 2 or bool((rows.prompt_mask == 0).any()):
        return 1
    blocks = [index[start: start + group] for start in range(0, len(index), group)]
    if any(len(set(block)) != 1 for block in blocks) or len({block[0] for block in blocks}) != len(blocks):
        return 1
    return group


def agree_on_sharing(groups: list[int], ranks) -> list[int]:
    """Per micro-batch group sizes, set to 1 wherever any rank cannot share (one all-reduce).

    Ranks hold the same number of micro-batches; the shared path runs two forwards, the full path
    one, so under FSDP (a collective per forward) every rank must take the same path.
    """
    if ranks.world_size == 1:
        return groups
    import torch
    import torch.distributed as dist

    flags = torch.tensor([1 if g > 1 else 0 for g in groups], dtype=torch.int32)
    if dist.get_backend() == "nccl":
        flags = flags.cuda()
    dist.all_reduce(flags, op=dist.ReduceOp.MIN)
    return [g if ok else 1 for g, ok in zip(groups, flags.tolist())]


class Scorer:
    """Scores response tokens under one model: states per micro-batch, log-probs per chunk."""

    def __init__(self, model, settings: ScoringSettings, *, sharded: bool = False):
        self.model, self.settings = model, settings
        self.head = None if sharded else _output_head(model)
        self.softcap = getattr(model.config, "final_logit_softcapping", None) if self.head is not None else None
        self.vocab = model.config.vocab_size

    # -- one micro-batch through the transformer ---------------------------------------------------
    def states(self, rows: RolloutBatch, group: int):
        """[m, T, H] final hidden states (head) or [m, T, V] logits at the positions that score
        each response token; differentiable when grad is enabled."""
        import torch

        body = self.model.base_model if self.head is not None else self.model
        with torch.autocast(rows.response_ids.device.type, dtype=torch.bfloat16,
                            enabled=self.settings.autocast_bf16):
            return self._forward(body, rows, group)

    def _forward(self, body, rows: RolloutBatch, group: int):
        import torch

        prompt_len, response_len = rows.prompt_ids.shape[1], rows.response_ids.shape[1]
        extra = {} if self.head is not None else {"logits_to_keep": response_len + 1}
        if group > 1 and self.settings.share_prompts:
            # The prompt once per prompt (its last position scores response token 0), its KV cache
            # repeated for the samples, then response tokens 0 .. T - 2 on top (scoring 1 .. T - 1).
            # Forward 1's output stays in the graph: FSDP runs its backward hooks from it.
            out = body(input_ids=rows.prompt_ids[::group], use_cache=True, **({"logits_to_keep": 1} if extra else {}))
            first = self._states_of(out)[:, -1:].repeat_interleave(group, 0)  # [m, 1, H or V]
            cache = output_cache(out)
            cache.batch_repeat_interleave(group)
            inputs = rows.response_ids[:, :-1]  # [m, T - 1]; T >= 2 (shared_prompt_group)
            positions = torch.arange(prompt_len, prompt_len + response_len - 1, device=inputs.device)
            out = body(input_ids=inputs, use_cache=True, position_ids=positions.unsqueeze(0).expand(inputs.shape[0], -1),
                       **{cache_argument(body): cache})
            return torch.cat([first, self._states_of(out)], 1)
        input_ids = torch.cat([rows.prompt_ids, rows.response_ids], -1)  # [m, P + T]
        padded = bool((rows.prompt_mask == 0).any())
        attention_mask = torch.cat([rows.prompt_mask, torch.ones_like(rows.response_ids)], -1) if padded else None
        position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0) if padded else None
        out = body(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, **extra)
        if self.head is not None:
            return out.last_hidden_state[:, prompt_len - 1: prompt_len - 1 + response_len]
        return out.logits[:, :response_len]  # logits_to_keep = T + 1: positions P - 1 ... P + T - 1

    def _states_of(self, out):
        return out.last_hidden_state if self.head is not None else out.logits

    # -- chunks of positions -------------------------------------------------------------------------
    def chunks(self, length: int, rows: int) -> Iterator[slice]:
        """Position slices holding about chunk_mb megabytes of fp32 [rows, positions, V] each."""
        per_position = max(rows * self.vocab * 4, 1)
        step = max(1, (self.settings.chunk_mb << 20) // per_position)
        for start in range(0, length, step):
            yield slice(start, min(start + step, length))

    def log_softmax(self, states):
        """fp32 log-softmax over the vocabulary of a chunk of states (at the sampling temperature)."""
        import torch

        logits = self.head(states) if self.head is not None else states
        logits = logits.float()
        if self.softcap:
            logits = torch.tanh(logits / self.softcap) * self.softcap
        if self.settings.temperature != 1.0:
            logits = logits / self.settings.temperature
        return torch.log_softmax(logits, -1)

    def _token_logprobs(self, states, tokens):
        return self.log_softmax(states).gather(-1, tokens.unsqueeze(-1)).squeeze(-1)

    def token_logprobs(self, states, tokens):
        """[m, T] log-probs of the response tokens, chunk by chunk; with gradient, each chunk is
        checkpointed so its [m, c, V] logits are recomputed in backward, never all kept."""
        import torch
        from torch.utils.checkpoint import checkpoint

        parts = []
        for cols in self.chunks(tokens.shape[1], tokens.shape[0]):
            if torch.is_grad_enabled() and states.requires_grad:
                parts.append(checkpoint(self._token_logprobs, states[:, cols], tokens[:, cols], use_reentrant=False))
            else:
                parts.append(self._token_logprobs(states[:, cols], tokens[:, cols]))
        return torch.cat(parts, 1)


def _output_head(model):
    """The model's output embedding when `lm_head(base_model(x))` (+ soft-capping) reproduces its
    logits on a few tokens; None otherwise (then the full-logits path is used)."""
    import torch

    head = model.get_output_embeddings()
    if head is None or getattr(model, "base_model", model) is model:
        return None
    device = next(model.parameters()).device
    ids = torch.arange(1, 5, device=device).unsqueeze(0) % model.config.vocab_size
    with torch.no_grad():
        expected = model(input_ids=ids).logits.float()
        got = head(model.base_model(input_ids=ids).last_hidden_state).float()
        softcap = getattr(model.config, "final_logit_softcapping", None)
        if softcap:
            got = torch.tanh(got / softcap) * softcap
    scale = float(expected.abs().max().clamp(min=1.0))
    return head if float((expected - got).abs().max()) <= HEAD_CHECK_TOLERANCE * scale else None


@dataclass
class BatchScores:
    """Per-token scores of one batch, detached fp32 [B, T]: the sampled tokens' log-probs under the
    policy and the reference, and the full-vocabulary KL(pi || ref), KL(ref || pi) and entropy."""

    logprobs: object
    ref_logprobs: object = None
    reverse_kl: object = None
    forward_kl: object = None
    entropy: object = None


def score_batch(policy: Scorer, reference: Scorer | None, batch: RolloutBatch, ranks) -> BatchScores:
    """Score every row without gradient, micro-batch by micro-batch and chunk by chunk.

    With a reference, also the full-vocabulary diagnostics (both distributions of one chunk at a time).
    """
    import torch

    from kleval.train.diagnostics import full_vocabulary_terms

    rows, length = batch.response_ids.shape
    out = {key: torch.zeros(rows, length, dtype=torch.float32, device=batch.response_ids.device)
           for key in ("logprobs", "ref_logprobs", "reverse_kl", "forward_kl", "entropy")}
    plan = micro_batches(batch, policy.settings.micro_batch)
    groups = agree_on_sharing([shared_prompt_group(mb) for _, mb in plan], ranks)
    with torch.no_grad():
        for (index, mb), group in zip(plan, groups):
            states = policy.states(mb, group)
            ref_states = reference.states(mb, group) if reference is not None else None
            for cols in policy.chunks(length, mb.response_ids.shape[0]):
                tokens = mb.response_ids[:, cols].unsqueeze(-1)
                full = policy.log_softmax(states[:, cols])  # [m, c, V]
                out["logprobs"][index, cols] = full.gather(-1, tokens).squeeze(-1)
                if ref_states is not None:
                    ref_full = reference.log_softmax(ref_states[:, cols])
                    out["ref_logprobs"][index, cols] = ref_full.gather(-1, tokens).squeeze(-1)
                    terms = full_vocabulary_terms(full, ref_full)
                    for key, value in zip(("reverse_kl", "forward_kl", "entropy"), terms):
                        out[key][index, cols] = value
                del full
    if reference is None:
        return BatchScores(out["logprobs"])
    return BatchScores(**out)
