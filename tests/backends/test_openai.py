"""The openai backend against a real local HTTP server speaking the completions schema."""
from __future__ import annotations

import socket

import pytest

from kleval.backends import make_backend
from kleval.backends.openai import ServerError
from kleval.errors import ConfigError
from kleval.types import SamplingParams

PROMPTS = ["first prompt", "second prompt here", "third"]


def test_n_samples_per_prompt_in_order_with_usage(openai_server):
    backend = make_backend("openai", "served-model", base_url=openai_server.base_url, concurrency=4)
    out = backend.generate(PROMPTS, SamplingParams(n=3, max_tokens=5, seed=0))
    assert [len(samples) for samples in out] == [3, 3, 3]
    for prompt, samples in zip(PROMPTS, out):
        for c in samples:
            assert c.prompt_tokens == len(prompt.split())
            assert c.num_tokens == 5 and c.finish_reason == "length"
        assert len({c.text for c in samples}) == 3  # each sample index carries its own seed
    sent = [body for path, body in openai_server.requests]
    assert all(path == "/v1/completions" for path, _ in openai_server.requests)
    assert {b["model"] for b in sent} == {"served-model"} and all(b["n"] == 1 for b in sent)
    assert len(sent) == 9


def test_samples_depend_on_prompt_and_seed_not_on_batch(openai_server):
    backend = make_backend("openai", "m", base_url=openai_server.base_url)
    params = SamplingParams(n=2, max_tokens=6, seed=5)
    together = backend.generate(PROMPTS, params)
    assert backend.generate([PROMPTS[2]], params)[0] == together[2]
    assert backend.generate(PROMPTS, SamplingParams(n=2, max_tokens=6, seed=6)) != together


def test_stop_strings_and_finish_reason(openai_server):
    backend = make_backend("openai", "m", base_url=openai_server.base_url)
    full = backend.generate(["p"], SamplingParams(n=1, max_tokens=8, seed=0))[0][0]
    stop = full.text.split()[3]
    cut = backend.generate(["p"], SamplingParams(n=1, max_tokens=8, seed=0, stop=(stop,)))[0][0]
    assert cut.text == full.text[: full.text.index(stop)] and cut.finish_reason == "stop"


def test_retries_after_server_errors(openai_server):
    openai_server.fail_next = 2
    backend = make_backend("openai", "m", base_url=openai_server.base_url, backoff=0.01, max_retries=3,
                           concurrency=1)
    out = backend.generate(["p"], SamplingParams(n=1, max_tokens=3))
    assert out[0][0].num_tokens == 3
    assert len(openai_server.requests) == 3


def test_gives_up_after_max_retries(openai_server):
    openai_server.fail_next = 10
    backend = make_backend("openai", "m", base_url=openai_server.base_url, backoff=0.01, max_retries=2)
    with pytest.raises(ServerError, match="failed after 3 attempts; last error: HTTP 503: overloaded"):
        backend.generate(["p"], SamplingParams(n=1, max_tokens=3))


def test_client_error_is_not_retried_and_names_the_problem(openai_server):
    backend = make_backend("openai", "missing", base_url=openai_server.base_url, backoff=0.01)
    with pytest.raises(ServerError, match="HTTP 404.*does not exist"):
        backend.generate(["p"], SamplingParams(n=1, max_tokens=3))
    assert len(openai_server.requests) == 1


def test_unreachable_server_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    backend = make_backend("openai", "m", base_url=f"http://127.0.0.1:{port}/v1", backoff=0.01, max_retries=1)
    with pytest.raises(ServerError, match="is the server running"):
        backend.generate(["p"], SamplingParams(n=1, max_tokens=3))


def test_concurrency_is_bounded(openai_server):
    openai_server.delay = 0.05
    backend = make_backend("openai", "m", base_url=openai_server.base_url, concurrency=3)
    backend.generate(["a", "b", "c", "d"], SamplingParams(n=3, max_tokens=2))
    assert 1 < openai_server.max_in_flight <= 3


def test_chat_uses_local_template_or_chat_endpoint(openai_server, tiny_checkpoint):
    templated = make_backend("openai", "m", tokenizer_path=tiny_checkpoint, base_url=openai_server.base_url)
    templated.generate(["hi"], SamplingParams(n=1, max_tokens=2), chat=True)
    path, body = openai_server.requests[-1]
    assert path == "/v1/completions" and body["prompt"] == "<|user|>hi<|assistant|>"
    remote = make_backend("openai", "m", base_url=openai_server.base_url)
    out = remote.generate(["hi"], SamplingParams(n=1, max_tokens=2), chat=True)
    path, body = openai_server.requests[-1]
    assert path == "/v1/chat/completions" and body["messages"] == [{"role": "user", "content": "hi"}]
    assert out[0][0].num_tokens == 2


def test_missing_base_url_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="--base-url"):
        make_backend("openai", "m")
