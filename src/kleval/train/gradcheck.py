"""`kleval gradcheck`: exact expected gradients of every KL configuration by enumeration.

A tabular autoregressive policy (one logit vector per prefix, a few tokens of vocabulary, fixed
length L) lets us enumerate every sequence, so expectations under pi are exact sums. For each
configuration we compute the exact expected gradient of its KL term (per unit beta, on-policy,
using the same `kl.kl_terms` as the trainer) and compare it with exact targets:

  rev      gradient of the sequence-level reverse KL(pi || ref)     (what a KL penalty should follow)
  fwd_seq  gradient of the sequence-level forward KL(ref || pi)
  fwd_tok  gradient of sum_t KL(ref || pi) at the prefixes pi visits, prefix distribution held fixed
  rev_tok  the same for the reverse KL (the token-level "partial" gradient)

Theory (Tang & Munos 2025; Shah et al. 2025): k1-reward, k1-both, k3-both = rev; k1-loss = 0;
k3-loss = fwd_tok (= fwd_seq at L = 1); k3-reward = rev - fwd_tok (with sequence granularity:
rev - fwd_seq at every L); k2-loss = rev_tok (= rev only at L = 1). Applied once to the sequence
log-ratio s: k2-loss-seq = rev and k3-loss-seq = fwd_seq at every L. Monte-Carlo rows give the
per-sample spread of each estimator (no baseline) relative to |rev|.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from kleval.klconfig import KLConfig, preset
from kleval.train.kl import kl_terms
from kleval.train.loss import importance_weighted_kl_terms

CONFIGS: dict[str, KLConfig] = {
    name: replace(preset(name, beta=1.0)) for name in ("k1-reward", "k1-loss", "k2-loss", "k3-loss", "k3-reward", "k1-both", "k3-both")
}
CONFIGS["k3-reward-seq"] = replace(preset("k3-reward", beta=1.0), granularity="sequence")
CONFIGS["k3-loss-seq"] = replace(preset("k3-loss", beta=1.0), granularity="sequence")
CONFIGS["k2-loss-seq"] = replace(preset("k2-loss", beta=1.0), granularity="sequence")
# Differentiable importance weights pi / pi_old (value 1 on-policy): TRL's use_bias_correction_kl is
# the token version; the sequence version makes K1 or K3 in the loss unbiased.
CONFIGS["k3-loss-iw-token"] = replace(preset("k3-loss", beta=1.0), importance_weighting="token")
CONFIGS["k3-loss-iw-seq"] = replace(preset("k3-loss", beta=1.0), importance_weighting="sequence")
CONFIGS["k1-loss-iw-seq"] = replace(preset("k1-loss", beta=1.0), importance_weighting="sequence")

# "Both" is unbiased only with RLOO's leave-one-out baseline and seq-mean-token-sum (the loss half
# then has the reward half's strength): GRPO's self-including mean / std and a per-response token
# mean break it (checked below: biased at every length).
CONFIGS["k3-both-grpo"] = preset("k3-both", beta=1.0)
CONFIGS["k3-both-token-mean"] = preset("k3-both", beta=1.0)
TRAINER_SETTINGS = {"k3-both-grpo": {"algorithm": "grpo"}, "k3-both-token-mean": {"aggregation": "seq-mean-token-mean"}}
BIASED = {"k3-both-grpo": "K3 in both places with GRPO's baseline is biased",
          "k3-both-token-mean": "K3 in both places with seq-mean-token-mean is biased (length > 1)"}

# (configuration, target name, lengths the claim holds for: "all" or 1)
THEORY = [
    ("k1-reward", "rev", "all", "K1 in reward is unbiased"),
    ("k1-both", "rev", "all", "K1 in reward and loss is unbiased"),
    ("k3-both", "rev", "all", "K3 in reward and loss is unbiased"),
    ("k1-loss", "zero", "all", "K1 in loss has zero expected gradient"),
    ("k3-loss", "fwd_tok", "all", "K3 in loss follows the forward KL (at visited prefixes)"),
    ("k3-loss", "fwd_seq", 1, "K3 in loss is the sequence forward-KL gradient at length 1"),
    ("k3-reward", "rev_minus_fwd_tok", "all", "K3 in reward follows reverse minus forward KL"),
    ("k3-reward-seq", "rev_minus_fwd_seq", "all", "sequence-level K3 in reward = reverse minus sequence forward KL"),
    ("k2-loss", "rev_tok", "all", "K2 in loss gives the token-level partial gradient"),
    ("k2-loss", "rev", 1, "K2 in loss is unbiased only at length 1"),
    ("k2-loss-seq", "rev", "all", "K2 of the sequence log-ratio in loss is unbiased (E[s grad log pi] = grad rev)"),
    ("k3-loss-seq", "fwd_seq", "all", "K3 of the sequence log-ratio in loss is the sequence forward-KL gradient"),
    ("k3-loss-iw-token", "rev_tok", "all", "K3 in loss with token importance weights gives the partial gradient"),
    ("k3-loss-iw-seq", "rev", "all", "K3 in loss with sequence importance weights is unbiased"),
    ("k1-loss-iw-seq", "rev", "all", "K1 in loss with sequence importance weights is unbiased"),
]
TOLERANCE = 1e-6


class TabularPolicy:
    """All V^L sequences of a tabular policy and the prefix node of every position."""

    def __init__(self, vocab: int, length: int):
        import torch

        self.vocab, self.length = vocab, length
        self.sequences = torch.cartesian_prod(*[torch.arange(vocab)] * length).reshape(-1, length)  # [N, L]
        offsets = [sum(vocab**s for s in range(t)) for t in range(length)]
        nodes = torch.zeros_like(self.sequences)
        for t in range(length):
            prefix_code = torch.zeros(len(self.sequences), dtype=torch.long)
            for s in range(t):
                prefix_code = prefix_code * vocab + self.sequences[:, s]
            nodes[:, t] = offsets[t] + prefix_code
        self.nodes = nodes  # [N, L] index of the logit row used at each position
        self.num_nodes = sum(vocab**t for t in range(length))

    def log_probs(self, table, sequences=None, nodes=None):
        """(per-token log-probs [N, L], full log-softmax [N, L, V]) under a logits table [nodes, V]."""
        import torch

        sequences = self.sequences if sequences is None else sequences
        nodes = self.nodes if nodes is None else nodes
        full = torch.log_softmax(table[nodes], -1)
        return full.gather(-1, sequences.unsqueeze(-1)).squeeze(-1), full


def _grad(value, table):
    import torch

    return torch.autograd.grad(value, table, retain_graph=True)[0].flatten()


def exact_targets(policy: TabularPolicy, table, ref_table) -> dict[str, Any]:
    """The exact target gradients (see module docstring), flattened to vectors."""
    import torch

    logp, full = policy.log_probs(table)
    ref_logp, ref_full = policy.log_probs(ref_table)
    seq_logp, seq_ref = logp.sum(-1), ref_logp.sum(-1)
    pi, ref_pi = seq_logp.exp(), seq_ref.exp()
    weights = pi.detach()
    rev = _grad((pi * (seq_logp - seq_ref)).sum(), table)
    fwd_seq = _grad((ref_pi * (seq_ref - seq_logp)).sum(), table)
    token_fwd = (ref_full.exp() * (ref_full - full)).sum(-1)  # [N, L]
    token_rev = (full.exp() * (full - ref_full)).sum(-1)
    fwd_tok = _grad((weights * token_fwd.sum(-1)).sum(), table)
    rev_tok = _grad((weights * token_rev.sum(-1)).sum(), table)
    return {"rev": rev, "fwd_seq": fwd_seq, "fwd_tok": fwd_tok, "rev_tok": rev_tok,
            "rev_minus_fwd_tok": rev - fwd_tok, "rev_minus_fwd_seq": rev - fwd_seq, "zero": torch.zeros_like(rev)}


def expected_gradient(policy: TabularPolicy, table, ref_table, kl: KLConfig, *, algorithm: str = "rloo",
                      aggregation: str = "seq-mean-token-sum"):
    """Exact on-policy expectation of the trainer's gradient of one configuration's KL (beta = 1,
    task reward 0), through the trainer's own `compute_advantages` and `compute_loss`.

    Each ordered pair (y_i, y_j) of sequences is one prompt's group of two samples, weighted by
    pi(y_i) pi(y_j) / 2 per row: the baseline (RLOO's other sample, GRPO's group mean / std) is
    enumerated exactly too, so a sign flip or a wrong baseline anywhere in that path shows.
    """
    import torch

    from kleval.train import advantage, loss

    logp, _ = policy.log_probs(table)  # [N, L]
    ref_logp, _ = policy.log_probs(ref_table)
    count, length = logp.shape
    pi = logp.sum(-1).exp().detach()  # [N]
    first, second = torch.arange(count).repeat_interleave(count), torch.arange(count).repeat(count)
    rows = torch.stack([first, second], 1).reshape(-1)  # [2 N^2]: y_i, y_j, y_i, y_j', ...
    lp, ref = logp[rows], ref_logp[rows]  # [2 N^2, L]
    mask = torch.ones_like(lp)
    pair_weight = (pi[first] * pi[second]).repeat_interleave(2) / 2  # sums to 1 over the rows
    penalty = kl_terms(kl, (lp - ref).detach(), mask)[0] if kl.in_reward else None
    advantages, _ = advantage.compute_advantages(
        torch.zeros(len(rows), dtype=lp.dtype), penalty, mask, beta=kl.beta if kl.in_reward else 0.0,
        samples_per_prompt=2, algorithm=algorithm, token_level=kl.granularity == "token")
    batch_weights = loss.LossWeights.for_batch(mask, aggregation, max_length=length)
    weights = loss.LossWeights(batch_weights.token_scale * len(rows) * pair_weight,
                               batch_weights.sequence_scale * len(rows) * pair_weight)
    terms = loss.compute_loss(lp, lp.detach(), ref, advantages, mask, kl=kl, aggregation=aggregation,
                              clip_epsilon=0.2, max_length=length, weights=weights)
    return _grad(terms.total, table)


def monte_carlo_spread(policy: TabularPolicy, table, ref_table, kl: KLConfig, samples: int, generator):
    """Per-sample gradient estimates of one configuration: (mean vector, total variance)."""
    import torch

    with torch.no_grad():
        probs = policy.log_probs(table)[0].sum(-1).exp()
    index = torch.multinomial(probs, samples, replacement=True, generator=generator)
    sequences, nodes = policy.sequences[index], policy.nodes[index]
    per_sample_table = table.detach().unsqueeze(0).repeat(samples, 1, 1).requires_grad_(True)  # [S, nodes, V]
    rows = torch.arange(samples).unsqueeze(-1)
    full = torch.log_softmax(per_sample_table[rows, nodes], -1)  # [S, L, V]
    logp = full.gather(-1, sequences.unsqueeze(-1)).squeeze(-1)
    ref_logp = policy.log_probs(ref_table.detach(), sequences, nodes)[0]
    mask = torch.ones_like(logp)
    surrogate = torch.zeros((), dtype=table.dtype)
    if kl.in_reward:
        _, penalty = kl_terms(kl, (logp - ref_logp).detach(), mask)
        surrogate = surrogate + (penalty * logp.sum(-1)).sum()
    if kl.in_loss:
        _, per_sequence = importance_weighted_kl_terms(kl, logp, logp.detach(), ref_logp, mask)
        surrogate = surrogate + per_sequence.sum()
    grads = torch.autograd.grad(surrogate, per_sample_table)[0].reshape(samples, -1)  # [S, P]
    mean = grads.mean(0)
    return mean, float(((grads - mean) ** 2).sum(-1).mean())


def _compare(estimate, target) -> tuple[float, float]:
    """(relative error |e - t| / max(|t|, tiny), cosine) of two gradient vectors."""
    target_norm = float(target.norm())
    rel = float((estimate - target).norm()) / max(target_norm, 1e-12)
    denominator = float(estimate.norm()) * target_norm
    cosine = float(estimate @ target) / denominator if denominator > 1e-24 else float("nan")
    return rel, cosine


def run_gradcheck(*, vocab: int = 3, lengths=(1, 2, 3, 4, 5), seed: int = 0, mc_samples: int = 2000,
                  ref_distance: float = 0.7) -> dict[str, Any]:
    """Every configuration at every length: errors against rev and against its theory target."""
    import torch

    rows, checks = [], []
    for length in lengths:
        policy = TabularPolicy(vocab, length)
        generator = torch.Generator().manual_seed(seed + length)
        table = torch.randn(policy.num_nodes, vocab, generator=generator, dtype=torch.float64).requires_grad_(True)
        noise = torch.randn(policy.num_nodes, vocab, generator=generator, dtype=torch.float64)
        ref_table = (table.detach() + ref_distance * noise).requires_grad_(False)
        targets = exact_targets(policy, table, ref_table)
        rev_norm = float(targets["rev"].norm())
        for name, kl in CONFIGS.items():
            gradient = expected_gradient(policy, table, ref_table, kl, **TRAINER_SETTINGS.get(name, {}))
            rel, cosine = _compare(gradient, targets["rev"])
            mc_mean, mc_variance = monte_carlo_spread(policy, table, ref_table, kl, mc_samples, generator)
            row = {"config": name, "length": length, "rel_error_vs_rev": rel, "cosine_vs_rev": cosine,
                   "norm_ratio": float(gradient.norm()) / rev_norm,
                   "mc_rel_std": (mc_variance ** 0.5) / rev_norm,
                   "mc_mean_rel_error": float((mc_mean - gradient).norm()) / max(float(gradient.norm()), 1e-12)}
            rows.append(row)
            for config, target, holds_for, claim in THEORY:
                if config == name and (holds_for == "all" or holds_for == length):
                    if target == "zero":
                        error = float(gradient.norm()) / rev_norm
                    else:
                        error = _compare(gradient, targets[target])[0]
                    checks.append({"claim": claim, "config": name, "target": target, "length": length,
                                   "rel_error": error, "passed": error < TOLERANCE})
    for name, claim in BIASED.items():
        found = [r for r in rows if r["config"] == name and (r["length"] > 1 or name == "k3-both-grpo")]
        checks.append({"claim": claim, "config": name, "target": "rev", "length": max(lengths),
                       "rel_error": min((r["rel_error_vs_rev"] for r in found), default=0.0),
                       "passed": all(r["rel_error_vs_rev"] > 1e-3 for r in found)})
    k2_long = [r for r in rows if r["config"] == "k2-loss" and r["length"] > 1]
    checks.append({"claim": "K2 in loss is biased for length > 1", "config": "k2-loss", "target": "rev",
                   "length": max(lengths), "rel_error": min((r["rel_error_vs_rev"] for r in k2_long), default=0.0),
                   "passed": all(r["rel_error_vs_rev"] > 1e-3 for r in k2_long)})
    return {"vocab": vocab, "lengths": list(lengths), "seed": seed, "mc_samples": mc_samples, "rows": rows,
            "checks": checks, "all_passed": all(c["passed"] for c in checks)}


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table: one row per configuration, relative error / cosine vs rev per length."""
    lengths = result["lengths"]
    header = f"{'config':<17}" + "".join(f"{'L=' + str(n) + ' err/cos':>20}" for n in lengths) + f"{'MC std/|rev|':>14}"
    lines = [header, "-" * len(header)]
    for name in CONFIGS:
        cells = {r["length"]: r for r in result["rows"] if r["config"] == name}
        text = "".join(f"{cells[n]['rel_error_vs_rev']:>10.3g} /{cells[n]['cosine_vs_rev']:>7.3f}  " for n in lengths)
        lines.append(f"{name:<17}{text}{cells[lengths[-1]]['mc_rel_std']:>14.3g}")
    lines.append("")
    lines.append("theory checks (max relative error against the predicted exact target, over lengths):")
    claims: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for check in result["checks"]:
        claims.setdefault((check["claim"], check["config"], check["target"]), []).append(check)
    for (claim, config, target), found in claims.items():
        mark = "ok  " if all(c["passed"] for c in found) else "FAIL"
        lengths_text = ",".join(str(c["length"]) for c in found)
        worst = max(c["rel_error"] for c in found)
        lines.append(f"  {mark} {config:<14} vs {target:<18} L={lengths_text:<10} {worst:.2e}  {claim}")
    return "\n".join(lines)


def plot_bias(result: dict[str, Any], path: str) -> None:
    """Relative error against the reverse-KL gradient vs sequence length, one line per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from kleval.report.plots import series_styles

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for name, style in zip(CONFIGS, series_styles(len(CONFIGS))):  # distinct colour + marker per series
        rows = [r for r in result["rows"] if r["config"] == name]
        ax.plot([r["length"] for r in rows], [max(r["rel_error_vs_rev"], 1e-16) for r in rows], label=name,
                color=style.colour, marker=style.marker, ls=style.linestyle)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_yscale("log")
    ax.set_xlabel("sequence length")
    ax.set_ylabel("|E[g] - grad KL(pi||ref)| / |grad KL|")
    ax.set_title("Bias of each KL configuration's expected gradient")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
