"""`kleval eval` backend flags: --base-url, --api-key (never on disk), served model names, vLLM
engine options, --device checks; each through the real command line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kleval.backends.common import check_device, parse_engine_args
from kleval.backends.vllm import engine_arguments
from kleval.cli import main
from kleval.errors import ConfigError

SECRET = "sk-test-0123456789abcdef"


def _eval(*argv: str) -> int:
    return main(["eval", "--tasks", "arith_add", "--limit", "3", "--max-tokens", "4", "--no-progress", *argv])


def _every_file_text(directory: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in directory.rglob("*") if p.is_file())


def test_base_url_and_api_key_flags_reach_the_server_and_never_the_study(openai_server, tmp_path, monkeypatch,
                                                                         capsys):
    for name in ("KLEVAL_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "study"
    code = _eval("--backend", "openai", "--base-url", openai_server.base_url, "--api-key", SECRET,
                 "--checkpoints", "served-only-model", "--out", str(out))
    assert code == 0
    assert openai_server.authorizations and set(openai_server.authorizations) == {f"Bearer {SECRET}"}
    assert {body["model"] for _, body in openai_server.requests} == {"served-only-model"}
    header = json.loads((out / "study.json").read_text())
    assert header["backend_options"]["base_url"] == openai_server.base_url
    assert SECRET not in _every_file_text(out) and SECRET not in capsys.readouterr().out
    checkpoints = json.loads((out / "checkpoints.json").read_text())
    assert [(c["label"], c["format"]) for c in checkpoints] == [("served-only-model", "served")]


def test_api_key_from_the_environment(openai_server, tmp_path, monkeypatch):
    monkeypatch.delenv("KLEVAL_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "from-openai-env")
    assert _eval("--backend", "openai", "--base-url", openai_server.base_url, "--checkpoints", "m",
                 "--out", str(tmp_path / "a")) == 0
    assert set(openai_server.authorizations) == {"Bearer from-openai-env"}
    monkeypatch.setenv("KLEVAL_API_KEY", "from-kleval-env")  # kleval's own variable wins
    assert _eval("--backend", "openai", "--base-url", openai_server.base_url, "--checkpoints", "m",
                 "--out", str(tmp_path / "b"), "--seed", "1") == 0
    assert openai_server.authorizations[-1] == "Bearer from-kleval-env"


def test_served_model_name_for_a_local_checkpoint(openai_server, tiny_checkpoint, tmp_path):
    out = tmp_path / "study"
    assert _eval("--backend", "openai", "--base-url", openai_server.base_url, "--checkpoints", str(tiny_checkpoint),
                 "--served-model-name", "policy-v1", "--out", str(out)) == 0
    assert {body["model"] for _, body in openai_server.requests} == {"policy-v1"}
    [ckpt] = json.loads((out / "checkpoints.json").read_text())
    assert ckpt["label"] == "policy-v1" and ckpt["tokenizer_path"] == str(tiny_checkpoint)


def test_name_equals_path_pairs(openai_server, tiny_checkpoint, tmp_path):
    out = tmp_path / "study"
    assert _eval("--backend", "openai", "--base-url", openai_server.base_url, "--out", str(out),
                 "--checkpoints", f"first={tiny_checkpoint}", "second") == 0
    assert {body["model"] for _, body in openai_server.requests} == {"first", "second"}
    labels = [c["label"] for c in json.loads((out / "checkpoints.json").read_text())]
    assert sorted(labels) == ["first", "second"]


def test_served_model_name_needs_one_checkpoint(tmp_path, capsys):
    assert _eval("--backend", "openai", "--base-url", "http://127.0.0.1:9/v1", "--checkpoints", "a", "b",
                 "--served-model-name", "x", "--out", str(tmp_path / "s")) == 2
    assert "--served-model-name names one model" in capsys.readouterr().err


def test_engine_options_become_vllm_arguments():
    from kleval.eval.spec import build_eval_spec, resolve_settings

    settings = resolve_settings(None, dict(
        checkpoints=["m"], tasks=["arith_add"], out="x", backend="vllm", gpu_memory_utilization=0.5,
        enforce_eager=True, max_model_len=2048,
        engine_args=["swap_space=8", "kv_cache_dtype=fp8", "limit_mm_per_prompt={\"image\": 0}"]))
    kwargs = engine_arguments("model-dir", None, build_eval_spec(settings).backend_options)
    assert kwargs["gpu_memory_utilization"] == 0.5 and kwargs["enforce_eager"] is True
    assert kwargs["max_model_len"] == 2048 and kwargs["swap_space"] == 8 and kwargs["kv_cache_dtype"] == "fp8"
    assert kwargs["limit_mm_per_prompt"] == {"image": 0}


def test_engine_arg_needs_key_equals_value():
    assert parse_engine_args(["max-num-seqs=4", "disable_log_stats=true"]) == {"max_num_seqs": 4,
                                                                              "disable_log_stats": True}
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        parse_engine_args(["swap_space"])


def test_cuda_device_without_cuda_is_one_line(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    with pytest.raises(ConfigError, match="--device cuda"):
        check_device("cuda")
    check_device("cpu")  # fine
    code = _eval("--checkpoints", "assets/tiny-arith-base", "--device", "cuda", "--out", str(tmp_path / "s"))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--device cuda" in err and "Traceback" not in err


def test_vllm_engine_that_cannot_start_is_one_line_naming_the_fixes(monkeypatch):
    import sys
    import types

    from kleval.backends.vllm import start_engine
    from kleval.errors import KlevalError

    class RefusingLLM:
        def __init__(self, **kwargs):
            raise ValueError("No available memory for the cache blocks. Try increasing "
                             "`gpu_memory_utilization` when initializing the engine.\n  (long engine log)")

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=RefusingLLM))
    with pytest.raises(KlevalError) as caught:
        start_engine({"model": "some/model", "gpu_memory_utilization": 0.92})
    message = str(caught.value)
    assert "\n" not in message and "some/model" in message and "No available memory" in message
    assert "--gpu-memory-utilization" in message and "--engine-arg" in message
