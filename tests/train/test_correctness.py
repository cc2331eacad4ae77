"""Regression tests, one per correctness bug found by reading and running the loop (issue 9)."""
import sys
import types
import warnings

import pytest
import torch

from kleval.errors import ConfigError
from kleval.klconfig import KLConfig
from kleval.train.kl import kl_terms
from kleval.train.loss import compute_loss
from kleval.train.tiny import COMMITTED_BASE, tiny_config


def test_k3_at_masked_positions_is_never_nan():
    """Past the end of a response the log ratio can be +-inf (a pad the model rules out):
    exp(-d) there times a 0 mask used to be NaN, in the value and in the gradient."""
    logprobs = torch.tensor([[-1.0, -2.0, float("-inf")], [-0.5, float("inf"), float("nan")]], requires_grad=True)
    ref = torch.tensor([[-1.5, -1.0, -3.0], [-0.7, -2.0, -1.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    for granularity in ("token", "sequence"):
        kl = KLConfig(estimator="k3", placement="loss", beta=1.0, granularity=granularity)
        per_token, per_sequence = kl_terms(kl, logprobs - ref, mask)
        assert torch.isfinite(per_token).all() and torch.isfinite(per_sequence).all()
        terms = compute_loss(logprobs, logprobs.detach(), ref, torch.ones(2, 3) * mask, mask, kl=kl,
                             aggregation="token-mean", clip_epsilon=0.2, max_length=3)
        (grad,) = torch.autograd.grad(terms.total, logprobs)
        assert torch.isfinite(terms.total) and torch.isfinite(grad).all()
        assert grad[0, 2] == 0 and grad[1, 1] == 0


def test_token_importance_weights_with_sequence_granularity_are_refused():
    """A sequence-level estimator has no per-token terms: token weights were silently ignored."""
    with pytest.raises(ConfigError, match="importance_weighting"):
        KLConfig(estimator="k3", placement="loss", granularity="sequence", importance_weighting="token")
    KLConfig(estimator="k3", placement="loss", granularity="sequence", importance_weighting="sequence")


@pytest.mark.parametrize("name", ["k1-both", "k3-both"])
def test_effective_beta_of_both_presets_is_beta_not_twice_beta(name):
    from kleval.train.loop import effective_beta

    config = tiny_config(name, base_dir=COMMITTED_BASE, beta=0.3)
    assert effective_beta(config, 4.0) == pytest.approx(0.3)
    assert effective_beta(tiny_config("k3-loss", base_dir=COMMITTED_BASE, beta=0.3,
                                      loss_aggregation="token-mean"), 4.0) == pytest.approx(0.3)
    assert effective_beta(tiny_config("k1-reward", base_dir=COMMITTED_BASE, beta=0.3), 4.0) == pytest.approx(0.3)


def test_both_presets_warn_unless_rloo_and_sequence_sum():
    from kleval.train.loop import BiasedConfigurationWarning, warn_if_biased

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_biased(tiny_config("k3-both", base_dir=COMMITTED_BASE))  # rloo + seq-mean-token-sum: silent
        warn_if_biased(tiny_config("k3-loss", base_dir=COMMITTED_BASE, algorithm="grpo"))  # not "both": silent
    for changes in ({"algorithm": "grpo"}, {"loss_aggregation": "seq-mean-token-mean"}):
        with pytest.warns(BiasedConfigurationWarning, match="rloo"):
            warn_if_biased(tiny_config("k1-both", base_dir=COMMITTED_BASE, **changes))


def test_vllm_rollout_passes_token_ids_not_strings(monkeypatch):
    """GPU-only path, tested with a fake engine (vLLM is not installed here): the engine must get
    exactly the ids the trainer scores, not strings it would tokenize again with a second BOS."""
    from transformers import AutoTokenizer

    from kleval.train.vllm_rollout import VLLMRollout

    captured = {}

    class SamplingParams:
        def __init__(self, **kwargs):
            captured["params"] = kwargs

    class FakeLLM:
        def generate(self, prompts, params, use_tqdm=False):
            captured["prompts"] = prompts
            completion = types.SimpleNamespace(token_ids=[tokenizer.convert_tokens_to_ids("7"), tokenizer.eos_token_id])
            return [types.SimpleNamespace(outputs=[completion] * captured["params"]["n"]) for _ in prompts]

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(SamplingParams=SamplingParams))
    tokenizer = AutoTokenizer.from_pretrained(COMMITTED_BASE)
    engine = VLLMRollout.__new__(VLLMRollout)
    engine.llm, engine.device = FakeLLM(), "cpu"
    prompts = ["12+34=", "5+5="]
    batch = engine.sample(tokenizer, prompts, samples_per_prompt=2, max_new_tokens=4, temperature=1.0, seed=3)
    expected = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
    assert captured["prompts"] == [{"prompt_token_ids": ids} for ids in expected]
    assert all(isinstance(ids, int) for p in captured["prompts"] for ids in p["prompt_token_ids"])
    for row in range(4):  # the trainer scores the same ids (left-padded)
        real = batch.prompt_ids[row][batch.prompt_mask[row].bool()].tolist()
        assert real == expected[row // 2]
    assert captured["params"]["repetition_penalty"] == 1.0 and captured["params"]["top_p"] == 1.0
    assert batch.texts == ["7"] * 4
