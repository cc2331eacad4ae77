"""Rollouts: the KV-cached sampling loop and the prompt-shared scoring forward match a plain forward;
`generate` samples from the policy itself whatever the model's generation_config says."""
import pytest
import torch

from kleval.train.data_parallel import Ranks
from kleval.train.rollout import sample_hf, sample_tiny
from kleval.train.scoring import Scorer, ScoringSettings, score_batch, shared_prompt_group
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


@pytest.mark.parametrize("micro_batch", [4, 8, 12])
def test_prompt_shared_forward_equals_the_full_forward(model_and_tokenizer, micro_batch):
    model, tokenizer = model_and_tokenizer
    batch = sample_tiny(model, tokenizer, ["12+34=", "07+99=", "45+45="], samples_per_prompt=4, max_new_tokens=5,
                        temperature=1.0, generator=torch.Generator().manual_seed(1))
    assert shared_prompt_group(batch) == 4 and shared_prompt_group(batch.rows(slice(0, 2))) == 2
    shared = score_batch(Scorer(model, ScoringSettings(micro_batch)), Scorer(model, ScoringSettings(micro_batch)),
                         batch, Ranks())
    full_settings = ScoringSettings(micro_batch, share_prompts=False)
    full = score_batch(Scorer(model, full_settings), Scorer(model, full_settings), batch, Ranks())
    assert torch.allclose(shared.logprobs, full.logprobs, atol=1e-5)
    assert torch.allclose(shared.ref_logprobs, full.logprobs, atol=1e-5)
    assert torch.allclose(full.reverse_kl, torch.zeros_like(full.reverse_kl), atol=1e-6)  # policy == reference


def test_greedy_tiny_sampling_agrees_with_generate(model_and_tokenizer):
    model, tokenizer = model_and_tokenizer
    prompts = ["12+34=", "5+5=", "99+1="]  # different lengths: the left-padded path
    ours = sample_tiny(model, tokenizer, prompts, samples_per_prompt=1, max_new_tokens=4, temperature=1e-6)
    torch.manual_seed(0)
    theirs = sample_hf(model, tokenizer, prompts, samples_per_prompt=1, max_new_tokens=4, temperature=1e-6)
    assert ours.texts == theirs.texts


def test_generate_ignores_the_models_generation_config(model_and_tokenizer):
    """A repetition penalty (or n-gram ban, or top-k) in generation_config.json would make `hf`
    samples off-policy: with it set, greedy `generate` must still pick the policy's own argmax."""
    model, tokenizer = model_and_tokenizer
    prompts = ["11+11=", "33+33=", "55+5="]
    ours = sample_tiny(model, tokenizer, prompts, samples_per_prompt=1, max_new_tokens=4, temperature=1e-6)
    saved = model.generation_config
    model.generation_config = saved.__class__(repetition_penalty=50.0, no_repeat_ngram_size=1, top_k=1,
                                              min_new_tokens=4, suppress_tokens=[tokenizer.convert_tokens_to_ids("2")])
    try:
        torch.manual_seed(0)
        theirs = sample_hf(model, tokenizer, prompts, samples_per_prompt=1, max_new_tokens=4, temperature=1e-6)
        assert model.generation_config.repetition_penalty == 50.0  # restored after sampling
    finally:
        model.generation_config = saved
    assert ours.texts == theirs.texts
