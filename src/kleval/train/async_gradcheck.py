"""The async recipe's off-policy bias, exactly: expected gradients by enumeration (`kleval gradcheck --async`).

The tabular policy of `train/gradcheck.py` (vocabulary V, length L, one logit row per prefix) lets
every sequence be enumerated. Rollouts come from a stale behaviour policy mu (the policy some
updates ago: its logit table is the current one plus `distance` times fixed noise; distance 0 is
on-policy), the loss is the recipe's own (`async_recipe.async_advantages` / `async_loss`: token
ratios capped at 8, R - group mean, token mean, KL clamped to [-10, 10], KL in the loss not
importance-weighted), and each ordered pair of sequences is one prompt's group of two samples
weighted mu(y_i) mu(y_j), so the expectation is exact. Every sequence carries a fixed random task
reward in {0, 1}. The rows compare E_mu[g] with the recipe's on-policy gradient E_pi[g] (its
off-policy bias) and give the cosine of -E_mu[g] with the gradient of the objective
J(pi) = E_pi[R] - beta KL(pi || ref).

Claims checked (relative error < 1e-9 unless a bias is claimed):
- on-policy, each preset's recipe gradient equals kleval's own trainer gradient with GRPO's mean
  baseline (no std) and token-mean aggregation (a second, independent code path: returns-to-go
  and straight-through clamps there, the same expectation);
- on-policy, without KL, -E[g] = (G - 1) / (G L) grad E_pi[R] (the self-including group mean and
  the token mean only rescale the true gradient);
- off-policy at length 1 (token ratio = sequence ratio, cap not reached), without KL the recipe is
  still unbiased; with K1 in the reward it follows grad E_pi[R - beta (log mu - log ref)]: the
  penalty is computed from the stale policy's log-probs;
- off-policy at length >= 2 the recipe without KL is biased (token ratios are not the prefix ratios);
- K1 in the loss, off-policy, adds beta / L * grad sum_y mu(y) sum_t log pi(y_t | y_<t) to the loss
  gradient (on-policy it is 0): a descent step lowers the likelihood of the stale samples, i.e. raises
  the cross-entropy of mu under pi, pushing pi away from mu (and, in the first batches, which the
  reference itself sampled, straight away from the reference).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from kleval.klconfig import preset

ASYNC_PRESETS = ("none", "k1-reward", "k3-loss", "k1-loss", "k3-reward")
DISTANCES = (0.0, 0.3, 1.0)
TOLERANCE = 1e-9
GROUP = 2


def _setup(vocab: int, length: int, seed: int, ref_distance: float):
    import torch

    from kleval.train.gradcheck import TabularPolicy

    policy = TabularPolicy(vocab, length)
    generator = torch.Generator().manual_seed(seed + 17 * length)
    table = torch.randn(policy.num_nodes, vocab, generator=generator, dtype=torch.float64).requires_grad_(True)
    ref_table = table.detach() + ref_distance * torch.randn(policy.num_nodes, vocab, generator=generator,
                                                            dtype=torch.float64)
    stale_noise = torch.randn(policy.num_nodes, vocab, generator=generator, dtype=torch.float64)
    rewards = torch.randint(0, 2, (len(policy.sequences),), generator=generator).to(torch.float64)
    return policy, table, ref_table, stale_noise, rewards


def _pairs(behaviour_logp):
    """Rows of every ordered pair (i, j) and the weight mu(y_i) mu(y_j) of each row's group."""
    import torch

    count = behaviour_logp.shape[0]
    mu = behaviour_logp.sum(-1).exp().detach()
    first, second = torch.arange(count).repeat_interleave(count), torch.arange(count).repeat(count)
    rows = torch.stack([first, second], 1).reshape(-1)
    return rows, (mu[first] * mu[second]).repeat_interleave(GROUP)


def recipe_gradient(policy, table, behaviour_table, ref_table, rewards, kl, *, ratio_cap: float = 8.0):
    """Exact E_{groups ~ mu}[gradient of the recipe's loss] (flattened), one group = two samples."""
    import torch

    from kleval.train.async_recipe import async_advantages, async_loss, micro_batch_weights
    from kleval.train.gradcheck import _grad

    logp, _ = policy.log_probs(table)
    old, _ = policy.log_probs(behaviour_table.detach())
    ref, _ = policy.log_probs(ref_table)
    rows, group_weight = _pairs(old)
    mask = torch.ones_like(logp[rows])
    advantages, _ = async_advantages(rewards[rows], old[rows], ref[rows], mask, kl=kl, samples_per_prompt=GROUP)
    batch = micro_batch_weights(mask, micro_batch_size=len(rows))  # 1 / tokens of the whole "batch"
    weights = replace(batch, token_scale=batch.token_scale * group_weight * len(rows) / GROUP)
    terms = async_loss(logp[rows], old[rows], ref[rows], advantages, mask, kl=kl, ratio_cap=ratio_cap,
                       weights=weights)
    return _grad(terms.total, table)


def trainer_gradient(policy, table, ref_table, rewards, kl):
    """Exact on-policy gradient of kleval's own loss (GRPO mean, no std, token mean) for comparison."""
    import torch

    from kleval.train import advantage, loss
    from kleval.train.gradcheck import _grad
    from kleval.train.kl import kl_terms

    logp, _ = policy.log_probs(table)
    ref, _ = policy.log_probs(ref_table)
    rows, group_weight = _pairs(logp)
    lp, rf = logp[rows], ref[rows]
    mask = torch.ones_like(lp)
    penalty = kl_terms(kl, (lp - rf).detach(), mask)[0] if kl.in_reward else None
    advantages, _ = advantage.compute_advantages(
        rewards[rows], penalty, mask, beta=kl.beta if kl.in_reward else 0.0, samples_per_prompt=GROUP,
        algorithm="grpo", token_level=True, scale_by_std=False)
    batch = loss.LossWeights.for_batch(mask, "token-mean", max_length=lp.shape[1])
    scale = group_weight * len(rows) / GROUP
    weights = loss.LossWeights(batch.token_scale * scale, batch.sequence_scale * scale)
    terms = loss.compute_loss(lp, lp.detach(), rf, advantages, mask, kl=kl, aggregation="token-mean",
                              clip_epsilon=0.2, max_length=lp.shape[1], weights=weights)
    return _grad(terms.total, table)


def _targets(policy, table, behaviour_table, ref_table, rewards, beta: float) -> dict[str, Any]:
    from kleval.train.gradcheck import _grad

    logp, _ = policy.log_probs(table)
    old, _ = policy.log_probs(behaviour_table.detach())
    ref, _ = policy.log_probs(ref_table)
    seq, seq_old, seq_ref = logp.sum(-1), old.sum(-1), ref.sum(-1)
    pi, mu = seq.exp(), seq_old.exp()
    reward = _grad((pi * rewards).sum(), table)
    return {"reward": reward,
            "objective": reward - beta * _grad((pi * (seq - seq_ref)).sum(), table),
            "reward_stale_k1": reward - beta * _grad((pi * (seq_old - seq_ref)).sum(), table),
            "stale_log_likelihood": _grad((mu * seq).sum(), table)}


def _max_ratio(policy, table, behaviour_table) -> float:
    """The largest per-token pi / mu over all sequences."""
    logp, _ = policy.log_probs(table.detach())
    old, _ = policy.log_probs(behaviour_table)
    return float((logp - old).exp().max())


def _compare(a, b) -> tuple[float, float]:
    from kleval.train.gradcheck import _compare as compare

    return compare(a, b)


def run_async_gradcheck(*, vocab: int = 3, lengths=(1, 2, 3), distances=DISTANCES, beta: float = 0.5,
                        seed: int = 0, ref_distance: float = 0.7) -> dict[str, Any]:
    """Every async preset at every length and staleness distance; rows and theory checks."""
    from kleval.train.async_recipe import ASYNC_KL_CLAMP

    rows, checks = [], []

    def check(claim: str, name: str, length: int, distance: float, error: float, biased: bool = False) -> None:
        checks.append({"claim": claim, "config": name, "length": length, "distance": distance, "rel_error": error,
                       "passed": error > 1e-3 if biased else error < TOLERANCE})

    for length in lengths:
        policy, table, ref_table, noise, rewards = _setup(vocab, length, seed, ref_distance)
        scale = (GROUP - 1) / (GROUP * length)
        for name in ASYNC_PRESETS:
            base = preset(name, beta=beta)
            kl = replace(base, clamp=ASYNC_KL_CLAMP, clamp_mode="hard") if base.active else base
            on_policy = recipe_gradient(policy, table, table, ref_table, rewards, kl)
            for distance in distances:
                behaviour = table.detach() + distance * noise
                gradient = recipe_gradient(policy, table, behaviour, ref_table, rewards, kl)
                targets = _targets(policy, table, behaviour, ref_table, rewards, beta)
                capped = _max_ratio(policy, table, behaviour) > 8.0
                bias, cosine_on = _compare(gradient, on_policy)
                _, cosine_objective = _compare(-gradient, targets["objective"])
                rows.append({"config": name, "length": length, "distance": distance,
                             "rel_error_vs_on_policy": bias, "cosine_vs_on_policy": cosine_on,
                             "cosine_vs_objective": cosine_objective,
                             "norm_ratio_vs_on_policy": float(gradient.norm()) / float(on_policy.norm()),
                             "ratio_cap_reached": capped})
                if distance == 0:
                    check("on-policy, the recipe's gradient = kleval's trainer (GRPO mean, token mean)", name, length,
                          distance, _compare(gradient, trainer_gradient(policy, table, ref_table, rewards, base))[0])
                if name == "none" and distance == 0:
                    check("on-policy without KL: -E[g] = (G-1)/(G L) grad E[R]", name, length, distance,
                          _compare(-gradient, scale * targets["reward"])[0])
                if name == "none" and distance > 0 and length == 1:
                    check("off-policy at length 1 without KL: unbiased while no ratio reaches the cap"
                          if not capped else "off-policy at length 1 without KL: biased once ratios pass the cap",
                          name, length, distance, _compare(-gradient, scale * targets["reward"])[0], biased=capped)
                if name == "none" and distance > 0 and length > 1:
                    check("off-policy at length >= 2 without KL: biased (token ratios)", name, length, distance,
                          _compare(-gradient, scale * targets["reward"])[0], biased=True)
                if name == "k1-reward" and distance > 0 and length == 1 and not capped:
                    check("off-policy K1 in the reward at length 1 follows grad E_pi[R - beta(log mu - log ref)]",
                          name, length, distance, _compare(-gradient, scale * targets["reward_stale_k1"])[0])
                if name == "k1-loss":
                    none_gradient = recipe_gradient(policy, table, behaviour, ref_table, rewards, preset("none"))
                    expected = (beta / length) * targets["stale_log_likelihood"]
                    check("K1 in the loss adds beta/L grad E_mu[log pi(y)] (0 on-policy; descent lowers the stale "
                          "samples' likelihood)",
                          name, length, distance, _compare(gradient - none_gradient, expected)[0]
                          if distance > 0 else float((gradient - none_gradient).norm()) / float(gradient.norm()))
    return {"vocab": vocab, "lengths": list(lengths), "distances": list(distances), "beta": beta, "seed": seed,
            "rows": rows, "checks": checks, "all_passed": all(c["passed"] for c in checks)}


def format_async_table(result: dict[str, Any]) -> str:
    """Per preset and length: off-policy bias |E_mu[g] - E_pi[g]| / |E_pi[g]| and the cosine of
    -E_mu[g] with grad J at each staleness distance; then the theory checks."""
    distances = result["distances"]
    header = f"{'config':<11}{'L':>3}" + "".join(f"{'d=' + format(d, 'g') + ' bias/cos(J)':>22}" for d in distances)
    lines = [header, "-" * len(header)]
    for length in result["lengths"]:
        for name in ASYNC_PRESETS:
            cells = {r["distance"]: r for r in result["rows"] if r["config"] == name and r["length"] == length}
            text = "".join(f"{cells[d]['rel_error_vs_on_policy']:>12.3g} /{cells[d]['cosine_vs_objective']:>7.3f}  "
                           for d in distances)
            lines.append(f"{name:<11}{length:>3}{text}")
    lines += ["", "theory checks (worst relative error over lengths and distances):"]
    claims: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in result["checks"]:
        claims.setdefault((c["claim"], c["config"]), []).append(c)
    for (claim, config), found in claims.items():
        mark = "ok  " if all(c["passed"] for c in found) else "FAIL"
        errors = [c["rel_error"] for c in found]
        shown = min(errors) if "biased" in claim else max(errors)
        lines.append(f"  {mark} {config:<10} {shown:.2e}  {claim}")
    return "\n".join(lines)
