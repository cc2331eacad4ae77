"""Per-step diagnostics: exact KL over the full vocabulary, every estimator, entropy; log writers.

Sequence quantities are sums over a response's tokens averaged over responses, the scale of a
reward-placed penalty. The exact reverse KL sums KL(pi(.|prefix) || ref(.|prefix)) over the
visited prefixes y ~ pi, an unbiased estimate of the sequence-level KL(pi || ref) (chain rule)
with far less variance than any sampled estimator. The "forward" figure sums KL(ref || pi) at the
same prefixes (prefixes visited by pi, not by ref: a diagnostic, not the sequence forward KL).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping


def full_vocabulary_terms(policy_logprobs, ref_logprobs):
    """Per-position KL(pi || ref), KL(ref || pi) and entropy of pi over the full vocabulary.

    policy_logprobs, ref_logprobs: [..., V] log-softmax (one chunk of positions). Returns three
    [...] tensors. Terms with zero probability count 0 even where the other log-prob is -inf.
    """
    import torch

    p, q = policy_logprobs.exp(), ref_logprobs.exp()
    zero = torch.zeros((), dtype=p.dtype, device=p.device)
    reverse = torch.where(p > 0, p * (policy_logprobs - ref_logprobs), zero).sum(-1)
    forward = torch.where(q > 0, q * (ref_logprobs - policy_logprobs), zero).sum(-1)
    entropy = -torch.where(p > 0, p * policy_logprobs, zero).sum(-1)
    return reverse, forward, entropy


def kl_statistics(scores, mask) -> dict[str, float]:
    """A step's KL and entropy statistics from per-token BatchScores (see scoring.py) and mask [B, T].

    Exact figures sum the full-vocabulary terms over each response (mean over responses) or average
    them per token; the sampled estimators use the sampled tokens' log ratio.
    """
    import torch

    from kleval.train.kl import estimate, masked

    with torch.no_grad():
        tokens = mask.sum().clamp(min=1)
        log_ratio = masked(scores.logprobs - scores.ref_logprobs, mask)
        stats = {
            "kl_exact": float((scores.reverse_kl * mask).sum(-1).mean()),
            "kl_exact_forward": float((scores.forward_kl * mask).sum(-1).mean()),
            "kl_exact_token": float((scores.reverse_kl * mask).sum() / tokens),
            "entropy": float((scores.entropy * mask).sum() / tokens),
        }
        for name in ("k1", "k2", "k3"):
            stats[f"kl_{name}"] = float((estimate(log_ratio, name) * mask).sum(-1).mean())
    return stats


class StepLogger:
    """Appends one JSON row per step to train_log.jsonl; mirrors scalars to TensorBoard if installed."""

    def __init__(self, run_dir: Path, *, resume_step: int = 0, tensorboard: bool = True) -> None:
        self.path = Path(run_dir) / "train_log.jsonl"
        if self.path.exists():  # keep the rows of steps that the resumed checkpoint already covers
            from kleval.eval.study import read_jsonl, write_atomic  # a kill mid-write leaves a torn last line

            kept = [row for row in read_jsonl(self.path, skip_torn=True) if row["step"] <= resume_step]
            write_atomic(self.path, "".join(json.dumps(row) + "\n" for row in kept))
        self.writer = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # optional dependency: JSONL is the log of record
                SummaryWriter = None
            if SummaryWriter is not None:
                self.writer = SummaryWriter(str(Path(run_dir) / "tensorboard"))

    def log(self, row: Mapping[str, Any]) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        if self.writer is not None:
            for key, value in row.items():
                if isinstance(value, (int, float)) and key != "step":
                    self.writer.add_scalar(key, value, row["step"])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def read_log(run_dir: str | Path) -> list[dict[str, Any]]:
    """All rows of a run's train_log.jsonl, in order."""
    from kleval.eval.study import read_jsonl

    return read_jsonl(Path(run_dir) / "train_log.jsonl", skip_torn=True)
