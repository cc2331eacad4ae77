"""The tiny Countdown study: its tokenizer, data, base builder, one RL step's rewards and the
`kleval demo --study countdown` arguments (the full study is `kleval demo --study countdown`)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kleval import countdown
from kleval.countdown import verify_countdown

ROOT = Path(__file__).resolve().parents[1]


def test_tiny_tokenizer_round_trips_prefixes_and_expressions():
    from kleval.tiny import make_tokenizer

    committed = __import__("transformers").AutoTokenizer.from_pretrained(
        ROOT / "assets" / "tiny-countdown-base")
    rows = countdown.load_rows("tiny-test")[:50] + countdown.load_rows("tiny-ood")[:50]
    texts = [r["question"] + r["solution"] for r in rows] + ["10,9,8:90=(10-9)*(8+7)/1", "1,3,4,6:24=6/(1-3/4)"]
    for tokenizer in (make_tokenizer(alphabet=countdown.TINY_ALPHABET), committed):
        for text in texts:
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
            assert len(ids) == len(text) and tokenizer.unk_token_id not in ids  # one token per character
            assert tokenizer.decode(ids) == text
        assert tokenizer.decode(tokenizer("7+7", add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id],
                                skip_special_tokens=True) == "7+7"


def test_tiny_parts_are_bare_solvable_in_range_and_disjoint():
    keys = {}
    for part in ("tiny-train", "tiny-test", "tiny-ood"):
        spec, rows = countdown.PARTS[part], countdown.load_rows(part)
        keys[part] = {countdown.problem_key(r["numbers"], r["target"]) for r in rows}
        assert len(rows) == len(keys[part]) == spec.count
        for r in rows:
            assert len(r["numbers"]) in spec.sizes and max(r["numbers"]) <= spec.max_number
            assert 1 <= r["target"] <= spec.max_target
            assert r["question"] == countdown.bare_prefix(r["numbers"], r["target"])
            assert set(r["question"] + r["solution"]) <= set(countdown.TINY_ALPHABET)
            assert verify_countdown(gold=r["gold"], completion=r["solution"]).correct  # bare expression format
    assert not keys["tiny-train"] & (keys["tiny-test"] | keys["tiny-ood"])


def test_impossible_part_is_an_error_not_an_endless_loop():
    with pytest.raises(ValueError, match="distinct problems"):
        countdown.generate_split("x", seed=0, count=50, sizes=(2,), max_number=3, max_target=9)


def test_pretraining_examples_avoid_held_out_problems_and_carry_slips():
    import random

    from kleval.train.countdown_base import example_drawer, held_out_keys

    held_out = held_out_keys()
    assert len(held_out) == 1000
    draw, rng = example_drawer(held_out), random.Random(0)
    wrong = sizes = 0
    for _ in range(3000):
        prefix, label = draw(rng)
        numbers_text, target_text = prefix[:-1].split(":")
        numbers, target = [int(n) for n in numbers_text.split(",")], int(target_text)
        assert countdown.problem_key(numbers, target) not in held_out
        wrong += not verify_countdown(gold=countdown.format_gold(target, numbers), completion=label).correct
        sizes += len(numbers) == 4
    # SLIPS: 35% of labels slip, and some slips keep the value (so between ~20% and 35% are wrong)
    assert 0.15 < wrong / 3000 < 0.36
    assert 0.45 < sizes / 3000 < 0.55  # OOD_SHARE of 4-number problems


def test_base_builder_is_deterministic(tmp_path):
    from kleval.train.countdown_base import build_countdown_base

    first = build_countdown_base(tmp_path / "a", steps=3, batch_size=16, threads=1)
    second = build_countdown_base(tmp_path / "b", steps=3, batch_size=16, threads=1)
    assert (first / "model.safetensors").read_bytes() == (second / "model.safetensors").read_bytes()
    assert (first / "tokenizer.json").read_bytes() == (second / "tokenizer.json").read_bytes()
    third = build_countdown_base(tmp_path / "c", steps=3, batch_size=16, threads=1, seed=1)
    assert (third / "model.safetensors").read_bytes() != (first / "model.safetensors").read_bytes()


def test_rl_rewards_are_the_countdown_graders_verdicts(tmp_path):
    """One rollout of the study's recipe: every reward is the grader's verdict on the sampled text,
    and a short run trains and logs exact KL for a sequence-level configuration."""
    import torch

    from kleval.countdown_study import countdown_config
    from kleval.train.countdown_base import COMMITTED_BASE
    from kleval.train.loop import collect_rollout, train
    from kleval.train.session import open_session

    torch.set_num_threads(1)
    config = countdown_config("k2-loss-seq", base_dir=COMMITTED_BASE, beta=1.0, steps=2, seed=0).with_overrides(
        prompts_per_step=8, samples_per_prompt=4)
    assert config.kl.granularity == "sequence" and config.task == "countdown_tiny_train"
    run = open_session(config, tmp_path / "probe", None)
    try:
        rollout = collect_rollout(run)
    finally:
        if run.logger is not None:
            run.logger.close()
    problems = {p.id: p for p in run.problems}
    assert len(rollout.batch.texts) == 32
    verdicts = []
    for text, reward, prompt_ids in zip(rollout.batch.texts, rollout.rewards.tolist(), rollout.batch.prompt_ids):
        prefix = run.tokenizer.decode(prompt_ids, skip_special_tokens=True)
        problem = next(p for p in problems.values() if p.question == prefix)
        verdict = verify_countdown(gold=problem.gold, completion=text)
        assert reward == float(verdict.correct), (prefix, text, verdict)
        verdicts.append(verdict.status.value)
    assert len(set(verdicts)) > 1  # the base is right some of the time, wrong some of the time

    last = train(config, tmp_path / "run", progress=False)
    log = (tmp_path / "run" / "train_log.jsonl").read_text().splitlines()
    assert len(log) == 2 and last.name == "global_step_2"


def test_countdown_study_arguments_are_one_clear_line(capsys):
    from kleval.cli import main

    for argv in (["--presets", "k9-loss"], ["--presets", "k1-reward-seq"], ["--presets", " , "], ["--steps", "0"],
                 ["--seeds", "0"]):
        capsys.readouterr()
        assert main(["demo", "--study", "countdown", *argv]) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err and len(err.splitlines()) == 1 and "Traceback" not in err, (argv, err)


@pytest.mark.slow
def test_countdown_study_slice_writes_summary_and_report(tmp_path, monkeypatch):
    from kleval.countdown_study import CountdownStudySettings, run_countdown_study

    shutil.copytree(ROOT / "assets" / "tiny-countdown-base", tmp_path / "assets" / "tiny-countdown-base")
    monkeypatch.chdir(tmp_path)
    settings = CountdownStudySettings(out=Path("cd"), base=Path("assets/tiny-countdown-base"),
                                      presets=("none", "k2-loss-seq"), seeds=(0,), steps=2, eval_limit=6, n=2,
                                      workers=1, figures=False)
    summary = run_countdown_study(settings, progress=False).read_text()
    assert "| none |" in summary and "| k2-loss-seq |" in summary and "Base model before RL" in summary
    table = (tmp_path / "cd" / "table.md").read_text()
    assert "k2-loss seq" in table  # labelled from the checkpoint's KL block, not the directory name
    assert str(tmp_path) not in (tmp_path / "cd" / "study" / "study.json").read_text()
