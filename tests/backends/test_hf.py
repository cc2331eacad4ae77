"""The hf backend on real tiny checkpoints: shapes, seeding, greedy decoding, stop strings, chat."""
from __future__ import annotations

import collections

import pytest

from kleval.backends import make_backend
from kleval.errors import CheckpointError, ConfigError
from kleval.types import SamplingParams

PROMPTS = ["What is 2+2?", "Let $x$ be a real number such that $x^2 + 3x - 4 = 0$.", "The answer is"]


@pytest.fixture(scope="module")
def backend(tiny_checkpoint):
    b = make_backend("hf", tiny_checkpoint, device="cpu", batch_size=8)
    yield b
    b.close()


def test_returns_n_completions_per_prompt_in_order(backend):
    params = SamplingParams(n=3, temperature=1.0, max_tokens=12, seed=0)
    out = backend.generate(PROMPTS, params)
    assert len(out) == len(PROMPTS)
    for prompt, samples in zip(PROMPTS, out):
        assert len(samples) == 3
        expected_prompt_tokens = len(backend.tokenizer(prompt)["input_ids"])
        for c in samples:
            assert c.prompt_tokens == expected_prompt_tokens
            assert 1 <= c.num_tokens <= 12
            assert c.finish_reason in ("stop", "length")
            assert (c.finish_reason == "length") == (c.num_tokens == 12)
    # The samples of one prompt differ from each other (each index has its own stream).
    assert len({c.text for c in out[1]}) > 1


def test_same_call_twice_gives_same_completions(backend):
    params = SamplingParams(n=2, temperature=1.0, top_p=0.9, max_tokens=16, seed=7)
    assert backend.generate(PROMPTS, params) == backend.generate(PROMPTS, params)


def test_seed_changes_samples(backend):
    a = backend.generate(PROMPTS, SamplingParams(n=2, max_tokens=16, seed=1))
    b = backend.generate(PROMPTS, SamplingParams(n=2, max_tokens=16, seed=2))
    assert a != b


def test_sample_independent_of_batch_composition_and_order(tiny_checkpoint, backend):
    params = SamplingParams(n=2, temperature=1.0, max_tokens=10, seed=3)
    together = backend.generate(PROMPTS, params)
    alone = backend.generate([PROMPTS[1]], params)
    reordered = backend.generate(list(reversed(PROMPTS)), params)
    small_batches = make_backend("hf", tiny_checkpoint, device="cpu", batch_size=1).generate(PROMPTS, params)
    assert alone[0] == together[1]
    assert reordered[::-1] == together
    assert small_batches == together


def _greedy_reference(backend, prompt: str, steps: int) -> list[int]:
    """Greedy decoding by full forward passes, no cache, no padding: an independent reference."""
    import torch

    ids = backend.tokenizer(prompt, return_tensors="pt")["input_ids"]
    out = []
    with torch.inference_mode():
        for _ in range(steps):
            logits = backend.model(input_ids=ids).logits[0, -1, : len(backend.tokenizer)]
            token = int(logits.argmax())
            out.append(token)
            if token in backend.eos_ids:
                break
            ids = torch.cat([ids, torch.tensor([[token]])], dim=1)
    return out


def test_temperature_zero_is_greedy_even_with_left_padding(backend):
    params = SamplingParams(n=2, temperature=0.0, max_tokens=10, seed=0)
    out = backend.generate(PROMPTS, params)
    for prompt, samples in zip(PROMPTS, out):
        reference = _greedy_reference(backend, prompt, 10)
        assert samples[0] == samples[1]
        assert samples[0].num_tokens == len(reference)
        assert samples[0].text == backend.tokenizer.decode(reference, skip_special_tokens=True)


def test_first_token_frequencies_follow_the_tempered_nucleus(backend):
    import torch

    prompt, temperature, top_p, n = PROMPTS[0], 0.05, 0.8, 400
    ids = backend.tokenizer(prompt, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        logits = backend.model(input_ids=ids).logits[0, -1, : len(backend.tokenizer)].double()
    probs = torch.softmax(logits / temperature, dim=-1)
    sorted_probs, order = probs.sort(descending=True)
    keep = (sorted_probs.cumsum(0) - sorted_probs) < top_p
    nucleus = {int(t): float(p) for t, p in zip(order[keep], sorted_probs[keep])}
    total = sum(nucleus.values())
    params = SamplingParams(n=n, temperature=temperature, top_p=top_p, max_tokens=1, seed=0)
    backend.batch_size = 200
    samples = backend.generate([prompt], params)[0]
    backend.batch_size = 8
    firsts = collections.Counter(backend.tokenizer(c.text, add_special_tokens=False)["input_ids"][0]
                                 for c in samples if c.text)
    assert set(firsts) <= set(nucleus)
    for token, p in nucleus.items():
        expected = n * p / total
        assert abs(firsts.get(token, 0) - expected) <= 4 * (expected ** 0.5) + 3


def test_stop_string_truncates_and_reports_stop(backend):
    params = SamplingParams(n=4, temperature=1.0, max_tokens=24, seed=11)
    free = backend.generate([PROMPTS[1]], params)[0]
    text = max((c.text for c in free), key=len)
    stop = text[len(text) // 2: len(text) // 2 + 2]
    stopped = backend.generate([PROMPTS[1]], SamplingParams(**{**params.to_dict(), "stop": (stop,)}))[0]
    for before, after in zip(free, stopped):
        if stop in before.text:
            assert after.text == before.text[: before.text.index(stop)]
            assert after.finish_reason == "stop"
            assert after.num_tokens <= before.num_tokens
        else:
            assert after == before
    assert any(stop in c.text for c in free)


def test_eos_ends_a_sample_with_stop(tiny_char_checkpoint):
    backend = make_backend("hf", tiny_char_checkpoint, device="cpu")
    out = backend.generate(["1+2="], SamplingParams(n=12, temperature=1.0, max_tokens=150, seed=0))[0]
    ended = [c for c in out if c.finish_reason == "stop"]
    assert ended, "a 19-token vocabulary should emit EOS within 150 tokens"
    assert all(c.num_tokens < 150 for c in ended)


def test_chat_applies_the_template(backend):
    params = SamplingParams(n=1, temperature=0.0, max_tokens=4, seed=0)
    plain = backend.generate([PROMPTS[0]], params)[0][0]
    chat = backend.generate([PROMPTS[0]], params, chat=True)[0][0]
    templated = backend.tokenizer.apply_chat_template(
        [{"role": "user", "content": PROMPTS[0]}], tokenize=False, add_generation_prompt=True)
    assert chat.prompt_tokens == len(backend.tokenizer(templated, add_special_tokens=False)["input_ids"])
    assert chat.prompt_tokens > plain.prompt_tokens


def test_bad_setup_is_a_clear_error(tiny_checkpoint, tmp_path):
    with pytest.raises(ConfigError, match="unknown backend"):
        make_backend("nope", tiny_checkpoint)
    with pytest.raises(ConfigError, match="does not take option"):
        make_backend("hf", tiny_checkpoint, temprature=1.0)
    with pytest.raises(CheckpointError, match="no tokenizer"):
        make_backend("hf", tiny_checkpoint, tokenizer_path=tmp_path)


def test_prompt_longer_than_context_is_refused(tiny_checkpoint):
    backend = make_backend("hf", tiny_checkpoint, device="cpu", max_model_len=8)
    with pytest.raises(ConfigError, match="does not fit"):
        backend.generate([PROMPTS[1]], SamplingParams(max_tokens=4))
