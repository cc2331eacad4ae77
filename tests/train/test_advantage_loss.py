"""Advantages (RLOO, GRPO, token-level returns) and the loss (aggregation, PPO clip, KL placement)."""
import pytest
import torch

from kleval.train.advantage import compute_advantages, group_baseline
from kleval.klconfig import KLConfig, preset
from kleval.train.loss import aggregate, compute_loss


def test_rloo_baseline_is_the_mean_of_the_other_samples():
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.0, 1.0])
    baseline, scale = group_baseline(rewards, 4, "rloo")
    for i in range(8):
        group = rewards[(i // 4) * 4:(i // 4) * 4 + 4].tolist()
        others = group[:i % 4] + group[i % 4 + 1:]
        assert baseline[i].item() == pytest.approx(sum(others) / 3)
    assert torch.all(scale == 1)


def test_grpo_advantages_have_zero_mean_and_unit_scale_per_group():
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.2, 0.9, 0.3, 0.4])
    mask = torch.ones(8, 3)
    adv, _ = compute_advantages(rewards, None, mask, beta=0.0, samples_per_prompt=4, algorithm="grpo", token_level=False)
    per_group = adv[:, 0].view(2, 4)
    assert torch.allclose(per_group.mean(-1), torch.zeros(2), atol=1e-6)
    assert torch.allclose(per_group.std(-1), torch.ones(2), atol=1e-3)


def test_reward_kl_is_subtracted_per_sequence_or_as_returns_to_go():
    rewards = torch.tensor([1.0, 0.0])
    kl = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.0, 0.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    adv, shaped = compute_advantages(rewards, kl, mask, beta=2.0, samples_per_prompt=2, algorithm="rloo", token_level=False)
    assert torch.allclose(shaped, torch.tensor([1.0 - 1.2, 0.0 - 0.8]))
    assert torch.allclose(adv[0], (shaped[0] - shaped[1]) * mask[0])
    adv_tok, _ = compute_advantages(rewards, kl, mask, beta=2.0, samples_per_prompt=2, algorithm="rloo", token_level=True)
    to_go = torch.tensor([1.2, 1.0, 0.6])  # beta * sum_{s >= t} k_s for the first response
    assert torch.allclose(adv_tok[0], (1.0 - to_go) - shaped[1])
    assert adv_tok[1, 1] == 0  # masked


@pytest.mark.parametrize("mode", ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-sum-norm"])
def test_aggregation_modes(mode):
    values = torch.tensor([[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    expected = {"token-mean": 10 / 4, "seq-mean-token-mean": (2.0 + 4.0) / 2,
                "seq-mean-token-sum": (6.0 + 4.0) / 2, "seq-sum-norm": 10 / (2 * 5)}[mode]
    assert aggregate(values, mask, mode, max_length=5).item() == pytest.approx(expected)


def _batch(seed=0):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(4, 3, 6, generator=g, requires_grad=True)
    tokens = torch.randint(0, 6, (4, 3), generator=g)
    ref = torch.log_softmax(torch.randn(4, 3, 6, generator=g), -1).gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    mask = torch.tensor([[1.0, 1, 1], [1, 1, 0], [1, 0, 0], [1, 1, 1]])
    advantages = torch.randn(4, 1, generator=g).expand(4, 3) * mask
    return logits, tokens, ref, mask, advantages


def _logprobs(logits, tokens):
    return torch.log_softmax(logits, -1).gather(-1, tokens.unsqueeze(-1)).squeeze(-1)


def test_on_policy_loss_is_reinforce_and_kl_enters_only_when_placed_in_the_loss():
    logits, tokens, ref, mask, adv = _batch()
    for kl, expect_kl in ((preset("k1-reward"), False), (preset("k3-loss", beta=0.5), True), (preset("none"), False)):
        logp = _logprobs(logits, tokens)
        terms = compute_loss(logp, logp.detach(), ref, adv, mask, kl=kl, aggregation="seq-mean-token-sum",
                             clip_epsilon=0.2, max_length=3)
        reinforce = -(adv * logp * mask).sum(-1).mean()
        assert torch.allclose(terms.policy, -(adv * mask).sum(-1).mean())  # ratio 1 in value
        g_policy = torch.autograd.grad(terms.policy, logits, retain_graph=True)[0]
        assert torch.allclose(g_policy, torch.autograd.grad(reinforce, logits, retain_graph=True)[0])
        assert (terms.kl.item() != 0) == expect_kl
        if expect_kl:
            d = logp - ref
            assert terms.kl.item() == pytest.approx(0.5 * (((-d).exp() - 1 + d) * mask).sum(-1).mean().item(), rel=1e-5)
        assert terms.importance_weight_mean == pytest.approx(1.0) and terms.clip_fraction == 0.0


def test_ppo_clip_stops_the_gradient_of_tokens_outside_the_trust_region():
    logits, tokens, ref, mask, adv = _batch(1)
    logp = _logprobs(logits, tokens)
    old = (logp + 1.0).detach()  # ratio e^-1 ~ 0.37: clipped where the advantage is negative
    terms = compute_loss(logp, old, ref, adv, mask, kl=preset("none"), aggregation="token-mean", clip_epsilon=0.2,
                         max_length=3)
    assert terms.clip_fraction == 1.0
    assert terms.importance_weight_max < 0.4


def test_sequence_importance_weights_give_k1_loss_the_score_term():
    """With a differentiable sequence ratio, on-policy K1-in-loss gets gradient d * grad log pi (unbiased)."""
    logits, tokens, ref, mask, adv = _batch(2)
    logp = _logprobs(logits, tokens)
    kl = KLConfig(estimator="k1", placement="loss", beta=1.0, importance_weighting="sequence")
    terms = compute_loss(logp, logp.detach(), ref, torch.zeros_like(adv), mask, kl=kl,
                         aggregation="seq-mean-token-sum", clip_epsilon=0.2, max_length=3)
    g = torch.autograd.grad(terms.kl, logits, retain_graph=True)[0]
    d_seq = ((logp - ref) * mask).sum(-1).detach()
    surrogate = ((d_seq.unsqueeze(-1) + 1.0) * logp * mask).sum(-1).mean()  # score term + path-wise term
    assert torch.allclose(g, torch.autograd.grad(surrogate, logits)[0], atol=1e-6)
