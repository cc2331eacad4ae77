"""Bad input, for every command that reads a file and for every numeric setting: one line
naming the file and line, exit 2, never a traceback, nothing half-written."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from bad_inputs import BUILDERS, DEFECTS, fake_model

from kleval.cli import main

pytestmark = pytest.mark.faults


def one_line(capsys, argv, env=()) -> tuple[int, str]:
    """Run `kleval argv` in process; (exit code, the single error line). argparse exits via SystemExit."""
    saved = {k: os.environ.get(k) for k, _ in env}
    os.environ.update(dict(env))
    try:
        code = main(list(map(str, argv)))
    except SystemExit as exc:
        code = exc.code
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line.lower() and "|" not in line]
    assert "Traceback" not in err
    assert len(errors) <= 1, err
    return code, errors[0] if errors else ""


CASES = [(command, defect) for command in BUILDERS for defect in DEFECTS]


@pytest.mark.parametrize("command,defect", CASES, ids=[f"{c}-{d}" for c, d in CASES])
def test_bad_file_is_one_line_with_file_and_line(tmp_path, capsys, command, defect):
    case = BUILDERS[command](tmp_path, defect)
    code, line = one_line(capsys, case.argv, case.env)
    if case.may_succeed and code == 0:
        return
    assert code == 2 and case.names in line, (code, line)
    if case.line is not None:
        assert f"{case.names}:{case.line}:" in line
    if command == "verify":
        assert not (tmp_path / "out.jsonl").exists()  # nothing half-written
    if command == "eval":
        assert not (tmp_path / "study").exists()


@pytest.mark.slow
def test_a_10_mb_completion_is_graded_not_choked_on(tmp_path):
    from faultkit import run_kleval

    words = ("step " * 2_100_000)[:10_000_000]
    rows = [{"gold": "3", "completion": words + " \\boxed{3}"}, {"gold": "3", "completion": "\\boxed{3}"}]
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = run_kleval("verify", "--input", source, "--output", out, "--timeout", "20", timeout=180)
    assert done.returncode == 0, done.stderr
    graded = [json.loads(line) for line in out.read_text().splitlines()]
    assert graded[1]["status"] == "correct" and graded[0]["status"] in ("correct", "no_answer", "incorrect", "timeout")


FLAGS = [
    ("--temperature", "-1"), ("--n", "0"), ("--top-p", "0"), ("--top-p", "1.5"), ("--max-tokens", "0"),
    ("--verify-timeout", "0"), ("--verify-workers", "-1"), ("--chunk-size", "0"), ("--limit", "0"),
    ("--k", "0"), ("--temperature", "nan"), ("--n", "two"),
]


@pytest.mark.parametrize("flag,value", FLAGS)
def test_bad_eval_settings_are_one_line(tmp_path, capsys, flag, value):
    code, line = one_line(capsys, ["eval", "--checkpoints", tmp_path, "--tasks", "gsm8k", "--out", tmp_path / "s",
                                   flag, value])
    assert code == 2 and flag in line and repr(value) in line


@pytest.mark.parametrize("key,value", [("n", 0), ("temperature", -1), ("top_p", 0), ("max_tokens", 0),
                                       ("chunk_size", 0), ("verify_workers", -1), ("verify_timeout", 0),
                                       ("temperature", "hot")])
def test_bad_study_spec_settings_are_one_line(tmp_path, capsys, key, value):
    spec = tmp_path / "study.toml"
    spec.write_text(f"{key} = {json.dumps(value)}\n")
    code, line = one_line(capsys, ["eval", "--config", spec, "--backend", "openai", "--checkpoints",
                                   fake_model(tmp_path), "--tokenizer", "tok", "--tasks", "gsm8k", "--out", tmp_path / "s"],
                          env=(("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),))
    assert code == 2 and key.split("_")[-1] in line.replace("-", "_"), line
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("argv", [
    ["report", "STUDY", "--resamples", "0"], ["report", "STUDY", "--k", "0"],
    ["verify", "--input", "IN", "--output", "OUT", "--timeout", "0"], ["verify", "--input", "IN", "--output", "OUT", "--workers", "0"],
    ["rescore", "STUDY", "--workers", "0"],
])
def test_bad_settings_of_other_commands_are_one_line(capsys, argv):
    code, line = one_line(capsys, argv)
    assert code == 2 and "expected" in line


def test_unknown_policy_and_generator_params_are_one_line(tmp_path, capsys):
    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"gold": "1", "completion": "1", "policy": "bogus"}) + "\n")
    code, line = one_line(capsys, ["verify", "--input", rows, "--output", tmp_path / "out.jsonl"])
    assert code == 2 and "bogus" in line and f"{rows}:1" in line
    tasks = Path(__file__).resolve().parents[2] / "tasks"
    spec = tmp_path / "arith_add.toml"
    spec.write_text((tasks / "arith_add.toml").read_text().replace("[generator_params]", "[generator_params]\nbogus = 1"))
    code, line = one_line(capsys, ["eval", "--checkpoints", fake_model(tmp_path), "--tokenizer", "tok", "--tasks", spec,
                                   "--backend", "openai", "--out", tmp_path / "s"], env=(("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),))
    assert code == 2 and "unknown generator_params ['bogus']" in line and str(spec) in line
    bad = tmp_path / "policy.toml"
    bad.write_text((tasks / "gsm8k.toml").read_text().replace('policy = "gsm8k"', 'policy = "bogus"'))
    code, line = one_line(capsys, ["eval", "--checkpoints", fake_model(tmp_path), "--tokenizer", "tok", "--tasks", bad,
                                   "--backend", "openai", "--out", tmp_path / "s"], env=(("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),))
    assert code == 2 and "bogus" in line and str(bad) in line
    spec.write_bytes(b"name = \"\xff\"\n")
    code, line = one_line(capsys, ["eval", "--checkpoints", fake_model(tmp_path), "--tokenizer", "tok", "--tasks", spec,
                                   "--backend", "openai", "--out", tmp_path / "s"], env=(("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),))
    assert code == 2 and "UTF-8" in line


@pytest.mark.slow
def test_damaged_weights_and_a_missing_gpu_are_one_line(tiny_checkpoint, tmp_path, capsys, data_dir):
    truncated, mismatched = tmp_path / "truncated", tmp_path / "mismatched"
    shutil.copytree(tiny_checkpoint, truncated)
    weights = truncated / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    shutil.copytree(tiny_checkpoint, mismatched)
    config = json.loads((mismatched / "config.json").read_text())
    config["intermediate_size"] *= 2
    (mismatched / "config.json").write_text(json.dumps(config))
    common = ["--tasks", "gsm8k", "--limit", "1", "--max-tokens", "2", "--data-dir", data_dir, "--no-progress"]
    for model, expected in ((truncated, "incomplete metadata"), (mismatched, "shapes do not match config.json")):
        code, line = one_line(capsys, ["eval", "--checkpoints", model, "--out", tmp_path / f"s-{model.name}", *common])
        assert code == 2 and expected in line and str(model) in line
    import torch

    if not torch.cuda.is_available():
        code, line = one_line(capsys, ["eval", "--checkpoints", tiny_checkpoint, "--out", tmp_path / "s-cuda",
                                       "--device", "cuda", *common])
        assert code == 2 and "--device cuda" in line and "CUDA" in line


def test_unresolvable_hydra_interpolation_in_a_verl_config_is_not_a_traceback(tmp_path):
    from kleval.errors import KlevalError
    from kleval.eval.checkpoints import discover

    step = tmp_path / "verl_run" / "global_step_3"
    shutil.copytree(fake_model(tmp_path / "base"), step / "actor" / "huggingface")
    (step / "actor" / "huggingface" / "tokenizer.json").write_text("{}")
    hydra = step / ".hydra"
    hydra.mkdir()
    (hydra / "config.yaml").write_text("algorithm:\n  kl_ctrl:\n    kl_coef: ${oc.env:KLEVAL_NOPE_UNSET}\n"
                                       "actor_rollout_ref:\n  actor:\n    kl_loss_coef: ${missing.key}\n"
                                       "trainer:\n  default_local_dir: ${undefined}\n")
    try:
        discover([str(tmp_path / "verl_run")])
    except KlevalError as exc:  # acceptable: a clear error ...
        assert "\n" not in str(exc)
    # ... or a checkpoint whose KL settings are reported unknown; never another exception type
