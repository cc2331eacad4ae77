"""KL estimators pinned against exact KL on small categorical distributions (values and gradients)."""
import pytest
import torch

from kleval.errors import ConfigError
from kleval.klconfig import PRESETS, KLConfig, effective_sequence_beta, preset, preset_name
from kleval.train.kl import estimate, kl_terms, straight_through_clamp


def categorical_pair(seed: int, size: int = 5):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(size, generator=g, dtype=torch.float64).requires_grad_(True)
    ref_logits = torch.randn(size, generator=g, dtype=torch.float64)
    return logits, torch.log_softmax(ref_logits, -1)


def exact_reverse(logits, ref_logp):
    logp = torch.log_softmax(logits, -1)
    return (logp.exp() * (logp - ref_logp)).sum()


def exact_forward(logits, ref_logp):
    logp = torch.log_softmax(logits, -1)
    return (ref_logp.exp() * (ref_logp - logp)).sum()


def expected_value(logits, ref_logp, name):
    logp = torch.log_softmax(logits, -1)
    return (logp.exp() * estimate(logp - ref_logp, name)).sum()


@pytest.mark.parametrize("seed", range(4))
def test_k1_and_k3_are_unbiased_values_of_reverse_kl(seed):
    logits, ref_logp = categorical_pair(seed)
    kl = exact_reverse(logits, ref_logp)
    assert torch.allclose(expected_value(logits, ref_logp, "k1"), kl)
    assert torch.allclose(expected_value(logits, ref_logp, "k3"), kl)


@pytest.mark.parametrize("seed", range(4))
def test_k2_value_is_half_expected_squared_log_ratio_and_k3_is_nonnegative(seed):
    logits, ref_logp = categorical_pair(seed)
    logp = torch.log_softmax(logits, -1)
    d = logp - ref_logp
    assert torch.allclose(expected_value(logits, ref_logp, "k2"), (logp.exp() * d**2).sum() / 2)
    assert bool((estimate(d, "k3") >= 0).all())
    assert torch.allclose(estimate(d, "k3"), (-d).exp() - 1 + d)


def grad(value, logits):
    return torch.autograd.grad(value, logits)[0]


def loss_gradient(logits, ref_logp, name):
    """E_{y~p}[grad k(d(y))] with the sampling distribution held fixed (KL in the loss)."""
    logp = torch.log_softmax(logits, -1)
    return grad((logp.exp().detach() * estimate(logp - ref_logp, name)).sum(), logits)


def reward_gradient(logits, ref_logp, name):
    """E_{y~p}[k(d(y)) grad log p(y)] with k detached (KL in the reward, score function)."""
    logp = torch.log_softmax(logits, -1)
    penalty = estimate((logp - ref_logp).detach(), name)
    return grad((logp.exp().detach() * penalty * logp).sum(), logits)


@pytest.mark.parametrize("seed", range(4))
def test_gradient_directions_match_theory_for_one_token(seed):
    logits, ref_logp = categorical_pair(seed)
    reverse = grad(exact_reverse(logits, ref_logp), logits)
    forward = grad(exact_forward(logits, ref_logp), logits)
    assert torch.allclose(reward_gradient(logits, ref_logp, "k1"), reverse)  # unbiased
    assert torch.allclose(loss_gradient(logits, ref_logp, "k1"), torch.zeros_like(reverse), atol=1e-12)
    assert torch.allclose(loss_gradient(logits, ref_logp, "k2"), reverse)  # one token: partial == full
    assert torch.allclose(loss_gradient(logits, ref_logp, "k3"), forward)  # forward KL, not reverse
    assert torch.allclose(reward_gradient(logits, ref_logp, "k3"), reverse - forward)
    both = reward_gradient(logits, ref_logp, "k3") + loss_gradient(logits, ref_logp, "k3")
    assert torch.allclose(both, reverse)


def test_descending_the_k1_reward_gradient_lowers_the_kl():
    logits, ref_logp = categorical_pair(7)
    before = float(exact_reverse(logits, ref_logp).detach())
    step = reward_gradient(logits, ref_logp, "k1")
    after = float(exact_reverse((logits - 0.1 * step).detach(), ref_logp))
    assert after < before


def test_straight_through_clamp_keeps_the_gradient():
    x = torch.tensor([-5.0, 0.5, 5.0], requires_grad=True)
    y = straight_through_clamp(x * 2, 1.0)
    assert y.tolist() == [-1.0, 1.0, 1.0]
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert torch.equal(straight_through_clamp(x, None), x)


def test_kl_terms_token_and_sequence_granularity():
    g = torch.Generator().manual_seed(0)
    d = torch.randn(3, 4, generator=g)
    mask = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]], dtype=torch.float32)
    tok, seq = kl_terms(KLConfig(estimator="k1", granularity="token"), d, mask)
    tok_s, seq_s = kl_terms(KLConfig(estimator="k1", granularity="sequence"), d, mask)
    assert torch.allclose(seq, (d * mask).sum(-1)) and torch.allclose(seq, seq_s)
    assert torch.allclose(tok_s.sum(-1), seq_s)
    _, seq3 = kl_terms(KLConfig(estimator="k3", granularity="sequence"), d, mask)
    total = (d * mask).sum(-1)
    assert torch.allclose(seq3, torch.expm1(-total) + total)
    assert float(tok[0, 3]) == 0.0


def test_presets_are_named_after_the_paper():
    expected = {"none": ("none", None), "k1-reward": ("k1", "reward"), "k1-loss": ("k1", "loss"),
                "k3-reward": ("k3", "reward"), "k3-loss": ("k3", "loss"), "k2-loss": ("k2", "loss"),
                "k1-both": ("k1", "both"), "k3-both": ("k3", "both")}
    assert set(PRESETS) == set(expected)
    for name, (estimator, placement) in expected.items():
        config = preset(name, beta=0.5)
        assert config.estimator == estimator
        if placement:
            assert config.placement == placement and config.beta == 0.5
        assert preset_name(config) == name
    assert not preset("none", beta=3.0).active
    assert preset("k1-both").in_reward and preset("k1-both").in_loss
    with pytest.raises(ConfigError):
        preset("k4-loss")
    with pytest.raises(ConfigError):
        KLConfig(placement="advantage")
    assert KLConfig.from_dict(preset("k3-both", beta=0.2).to_dict()) == preset("k3-both", beta=0.2)


@pytest.mark.parametrize("aggregation", ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-sum-norm"])
@pytest.mark.parametrize("granularity", ["token", "sequence"])
def test_effective_beta_is_the_kl_to_policy_weight_ratio_of_the_trainers_loss(aggregation, granularity):
    """Measured on compute_loss itself: each response's KL-term weight over its policy-term weight
    (d loss / d KL-estimate-sum over d loss / d (A * sum ratio)), times beta, averaged over responses,
    is what effective_sequence_beta says: beta for per-token terms under every aggregation (they
    share the policy term's weight), scaled by length for sequence-level ones."""
    import torch

    from kleval.train.loss import LossWeights, compute_loss

    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], dtype=torch.float64)
    config = KLConfig(estimator="k1", placement="loss", beta=0.5, granularity=granularity)
    weights = LossWeights.for_batch(mask, aggregation, max_length=5)
    logprobs = torch.full((4, 5), -1.0, dtype=torch.float64, requires_grad=True)
    ref = torch.full((4, 5), -1.2, dtype=torch.float64)
    # K1 in the loss: d/dlogp of beta * K1 is beta per token (granularity "sequence": beta per response
    # on its sum); the on-policy policy term's d/dlogp is -A per token. With A = -1 the two gradients,
    # summed over a response's tokens, are its KL weight * beta * length-or-1 and its policy weight * length.
    kl_only = compute_loss(logprobs, logprobs.detach(), ref, torch.zeros(4, 5, dtype=torch.float64), mask, kl=config,
                           aggregation=aggregation, clip_epsilon=0.2, max_length=5, weights=weights)
    (kl_grad,) = torch.autograd.grad(kl_only.kl, logprobs)
    policy_only = compute_loss(logprobs, logprobs.detach(), ref, -torch.ones(4, 5, dtype=torch.float64), mask,
                               kl=preset("none"), aggregation=aggregation, clip_epsilon=0.2, max_length=5,
                               weights=weights)
    (pg_grad,) = torch.autograd.grad(policy_only.policy, logprobs)
    ratios = (kl_grad.sum(-1) / pg_grad.sum(-1)).tolist()  # per response: KL gradient / policy gradient
    mean_length = float(mask.sum(-1).mean())
    expected = effective_sequence_beta(config, aggregation, 5.0 if aggregation == "seq-sum-norm" else mean_length)
    assert sum(ratios) / len(ratios) == pytest.approx(expected)
    if granularity == "token":
        assert ratios == pytest.approx([0.5] * 4)  # every response: the same trade-off, whatever the aggregation
    assert effective_sequence_beta(preset("k1-reward"), aggregation, 4.0) == 0.0
