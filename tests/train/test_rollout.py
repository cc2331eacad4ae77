"""Rollouts: the KV-cached sampling loop and the prompt-shared training forward match a plain forward."""
import pytest
import torch

import kleval.train.rollout as rollout
from kleval.train.rollout import response_logits, sample_hf, sample_tiny
from kleval.train.tiny import COMMITTED_BASE


@pytest.fixture(scope="module")
def model_and_tokenizer(tiny_char_checkpoint):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = COMMITTED_BASE if (COMMITTED_BASE / "model.safetensors").exists() else tiny_char_checkpoint
    return AutoModelForCausalLM.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def test_sampling_masks_everything_after_end_of_sequence(model_and_tokenizer):
    model, tokenizer = model_and_tokenizer
    batch = sample_tiny(model, tokenizer, ["12+34=", "50+50="], samples_per_prompt=3, max_new_tokens=5,
                        temperature=1.0, generator=torch.Generator().manual_seed(0))
    assert batch.response_ids.shape[0] == 6 and batch.prompt_index == [0, 0, 0, 1, 1, 1]
    for ids, mask, truncated in zip(batch.response_ids, batch.response_mask, batch.truncated):
        n = int(mask.sum())
        assert mask[:n].all() and not mask[n:].any()
        eos = (ids[:n] == tokenizer.eos_token_id).nonzero()
        assert (len(eos) == 0) == bool(truncated)
        if len(eos):
            assert int(eos[0]) == n - 1  # the mask ends at the first end of sequence
    assert all(isinstance(t, str) for t in batch.texts)


def test_prompt_shared_forward_equals_the_full_forward(model_and_tokenizer, monkeypatch):
    model, tokenizer = model_and_tokenizer
    batch = sample_tiny(model, tokenizer, ["12+34=", "07+99=", "45+45="], samples_per_prompt=4, max_new_tokens=5,
                        temperature=1.0, generator=torch.Generator().manual_seed(1))
    assert rollout._shared_prompt_group(batch) == 4
    shared = response_logits(model, batch)
    monkeypatch.setattr(rollout, "_shared_prompt_group", lambda b: 1)
    full = response_logits(model, batch)
    assert shared.shape == full.shape
    assert torch.allclose(shared, full, atol=1e-5)


def test_greedy_tiny_sampling_agrees_with_generate(model_and_tokenizer):
    model, tokenizer = model_and_tokenizer
    prompts = ["12+34=", "5+5=", "99+1="]  # different lengths: the left-padded path
    ours = sample_tiny(model, tokenizer, prompts, samples_per_prompt=1, max_new_tokens=4, temperature=1e-6)
    torch.manual_seed(0)
    theirs = sample_hf(model, tokenizer, prompts, samples_per_prompt=1, max_new_tokens=4, temperature=1e-6)
    assert ours.texts == theirs.texts
