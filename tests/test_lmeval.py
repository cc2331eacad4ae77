"""`kleval export lm-eval`: configs lm-eval can load, grading equal to kleval's, and a real offline run."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kleval.cli import main
from kleval.verify import verify

yaml_loader = pytest.importorskip("lm_eval.tasks._yaml_loader")

MODEL_OUTPUTS = "model_outputs"


def _export(out: Path, data_dir: Path, *extra: str) -> None:
    assert main(["export", "lm-eval", str(out), "--data-dir", str(data_dir), *extra]) == 0


def _config(out: Path, task: str) -> dict:
    """The YAML as lm-eval itself loads it (this resolves the `!function` hook)."""
    return yaml_loader.load_yaml(out / f"kleval_{task}.yaml")


def test_export_writes_configs_lm_eval_can_load(tmp_path, data_dir):
    out = tmp_path / "lm"
    _export(out, data_dir, "--tasks", "math500,mmlu_college_physics", "--n", "4", "--k", "1,2",
            "--temperature", "0.6", "--max-tokens", "64")
    for task, kind in (("math500", "math"), ("mmlu_college_physics", "choice")):
        config = _config(out, task)
        assert config["task"] == f"kleval_{task}" and config["output_type"] == "generate_until"
        assert config["repeats"] == 4 and callable(config["process_results"])
        assert config["filter_list"][0]["filter"] == [{"function": "take_first_k", "k": 4}]
        assert config["generation_kwargs"] == {"until": [], "max_gen_toks": 64, "do_sample": True,
                                               "temperature": 0.6, "top_p": 1.0}
        assert [m["metric"] for m in config["metric_list"]] == ["pass@1", "pass@2", "mean@n"]
        data_file = Path(config["dataset_kwargs"]["data_files"]["test"])
        assert data_file.is_absolute() and data_file.is_file()  # relative paths break outside cwd
        rows = [json.loads(line) for line in data_file.read_text().splitlines()]
        from kleval.tasks import load_task

        loaded = load_task(task, data_dir=data_dir)
        problems = loaded.problems()
        assert len(rows) == len(problems)
        assert rows[0]["prompt"] == loaded.prompt(problems[0]) and rows[0]["gold"] == problems[0].gold
        assert {r["kind"] for r in rows} == {kind}


def test_bad_k_is_one_clear_line(tmp_path, data_dir, capsys):
    assert main(["export", "lm-eval", str(tmp_path / "x"), "--tasks", "gsm8k", "--k", "1,4", "--n", "2",
                 "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert "k <= n" in err and len(err.splitlines()) == 1


def _real_completions(data_dir: Path) -> list[dict]:
    """Real LLM outputs (MATH and GSM8K) with a mix of right and wrong answers."""
    picked = []
    for name, kind, policy in (("qwen25math_math_cot_100.jsonl", "math", "default"),
                               ("gsm8k_openai_example_solutions.jsonl", "number", "gsm8k")):
        with open(data_dir / MODEL_OUTPUTS / name, encoding="utf-8") as fh:
            for line, _ in zip(fh, range(12)):
                row = json.loads(line)
                picked.append({"gold": row["gold"], "completion": row["completion"], "kind": kind, "policy": policy})
    return picked


def test_lm_eval_hook_grades_exactly_like_kleval(tmp_path, data_dir):
    _export(tmp_path / "lm", data_dir, "--tasks", "gsm8k")
    process_results = _config(tmp_path / "lm", "gsm8k")["process_results"]
    rows = _real_completions(data_dir)
    mine = [verify(gold=r["gold"], completion=r["completion"], kind=r["kind"], policy=r["policy"]).correct
            for r in rows]
    theirs = [process_results(r, [r["completion"]]) for r in rows]
    assert [t["pass@1"] for t in theirs] == [float(c) for c in mine]
    assert 0 < sum(mine) < len(mine)  # both outcomes are exercised


def test_pass_at_k_over_repeats(tmp_path, data_dir):
    _export(tmp_path / "lm", data_dir, "--tasks", "gsm8k", "--n", "4", "--k", "1,2,4")
    process_results = _config(tmp_path / "lm", "gsm8k")["process_results"]
    doc = {"gold": "18", "kind": "number", "policy": "gsm8k"}
    repeats = ["#### 18", "#### 17", "no idea", "#### 20"]  # one of four correct
    scores = process_results(doc, [repeats])
    assert scores["mean@n"] == 0.25
    for k in (1, 2, 4):
        assert scores[f"pass@{k}"] == pytest.approx(1 - math.comb(3, k) / math.comb(4, k))


def _lm_eval_samples(results_dir: Path, task: str) -> list[dict]:
    [path] = list(results_dir.rglob(f"samples_kleval_{task}_*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_lm_eval_runs_offline_and_agrees_with_kleval(tmp_path, tiny_checkpoint, data_dir):
    pytest.importorskip("accelerate")  # lm-eval's hf model imports it
    tasks = ["math500", "gsm8k", "mmlu_college_physics"]
    out = tmp_path / "lm"
    _export(out, data_dir, "--tasks", ",".join(tasks), "--n", "2", "--k", "1,2", "--temperature", "1.0",
            "--max-tokens", "12")
    results = tmp_path / "results"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    cmd = [sys.executable, "-m", "lm_eval", "--model", "hf",
           "--model_args", f"pretrained={tiny_checkpoint},dtype=float32", "--device", "cpu",
           "--include_path", str(out), "--tasks", ",".join(f"kleval_{t}" for t in tasks),
           "--apply_chat_template", "--limit", "3", "--seed", "0", "--log_samples", "--output_path", str(results)]
    # cwd elsewhere: the absolute data_files must not depend on where lm_eval is started
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_checkpoint)
    agree = 0
    for task in tasks:
        samples = _lm_eval_samples(results, task)
        assert len(samples) == 3
        for s in samples:
            # lm-eval saw kleval's prompt in the chat template, as kleval's hf backend sends it
            chat = [{"role": "user", "content": s["doc"]["prompt"]}]
            templated = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
            assert s["arguments"]["gen_args_0"]["arg_0"] == templated
            completions = s["filtered_resps"][0]
            assert len(completions) == 2 and any(c.strip() for c in completions)
            verdicts = [verify(gold=s["doc"]["gold"], completion=c, kind=s["doc"]["kind"],
                               policy=s["doc"]["policy"]) for c in completions]
            correct = sum(v.correct for v in verdicts)
            assert s["mean@n"] == correct / 2 and s["pass@1"] == correct / 2
            assert s["pass@2"] == float(correct > 0)
            agree += 1
    assert agree == 9
