"""Helpers shared by all backends: stop truncation, reasoning stripping, seeds, option checks."""
from __future__ import annotations

import pytest

from kleval.backends.common import check_options, sample_seed, strip_reasoning, truncate_at_stop
from kleval.backends.vllm import engine_arguments, visible_device_groups
from kleval.errors import ConfigError


@pytest.mark.parametrize("text, stop, expected", [
    ("a b\n\nc", ("\n\n",), ("a b", True)),
    ("x STOP y END", ("END", "STOP"), ("x ", True)),  # the earliest occurrence wins, not the first listed
    ("nothing here", ("END",), ("nothing here", False)),
    ("keep", ("",), ("keep", False)),
])
def test_truncate_at_stop(text, stop, expected):
    assert truncate_at_stop(text, stop) == expected


def test_strip_reasoning_keeps_the_answer_after_the_last_marker():
    assert strip_reasoning("<think>hmm</think> so </think>\n The answer is 4") == "The answer is 4"
    assert strip_reasoning("no reasoning block") == "no reasoning block"


def test_sample_seed_depends_on_seed_prompt_and_index_only():
    base = sample_seed(0, "p", 0)
    assert base == sample_seed(0, "p", 0)
    assert len({base, sample_seed(1, "p", 0), sample_seed(0, "q", 0), sample_seed(0, "p", 1)}) == 4
    assert 0 <= base < 2 ** 63


def test_unknown_options_are_listed():
    with pytest.raises(ConfigError, match="'x'.*does not take option.*bogus.*known options: a, b"):
        check_options("x", {"bogus": 1}, ("a", "b"))


def test_vllm_engine_arguments_and_device_groups(monkeypatch):
    kwargs = engine_arguments("/m", None, {"tensor_parallel_size": 2, "max_model_len": None,
                                          "engine_kwargs": {"swap_space": 0}})
    assert kwargs == {"model": "/m", "tokenizer": "/m", "seed": 0, "tensor_parallel_size": 2, "swap_space": 0}
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3")
    assert visible_device_groups(2, 2) == ["0,1", "2,3"]
    with pytest.raises(ConfigError, match="4 are visible"):
        visible_device_groups(4, 2)
