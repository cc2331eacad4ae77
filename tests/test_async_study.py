"""The async study's stability measures, on hand-made training logs."""
import json

import pytest

from kleval.async_study import run_stability


def _log(path, rewards, kls):
    path.mkdir()
    rows = [{"step": i + 1, "reward": r, "kl_exact": k, "clip_fraction": 0.0, "rollout_staleness": min(i, 2)}
            for i, (r, k) in enumerate(zip(rewards, kls))]
    (path / "train_log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_steady_run_and_an_oscillating_one(tmp_path):
    steps = 200
    _log(tmp_path / "steady", [0.5] * steps, [0.1] * steps)
    # the KL swings between 0.1 and 3.1 with a 100-step period in the second half; the reward falls at the end
    kls = [0.1] * 100 + [0.1 + 3.0 * (((i // 50) % 2)) for i in range(100)]
    _log(tmp_path / "wild", [0.6] * 150 + [0.1] * 50, kls)
    steady, wild = run_stability(tmp_path / "steady"), run_stability(tmp_path / "wild")
    assert steady["kl_swing_second_half"] == pytest.approx(0.0) and steady["reward_drop"] == pytest.approx(0.0)
    assert steady["kl_late"] == pytest.approx(0.1) and steady["reward_late"] == pytest.approx(0.5)
    assert wild["kl_max"] == pytest.approx(3.1) and wild["kl_swing_second_half"] == pytest.approx(3.0)
    assert wild["reward_drop"] == pytest.approx(0.5) and wild["reward_late"] == pytest.approx(0.1)
    assert wild["kl_std_second_half"] == pytest.approx(1.5)
    assert steady["staleness_mean"] == pytest.approx((0 + 1 + 2 * (steps - 2)) / steps)  # a pipeline 2 deep


@pytest.mark.slow
def test_async_study_slice_writes_its_files(tmp_path):
    import csv

    from kleval.async_study import AsyncStudySettings, run_async_study

    settings = AsyncStudySettings(out=tmp_path / "async", presets=("none", "k1-loss"), seeds=(0,), steps=3,
                                  async_level=2, beta=0.3, staleness_mode="latest", eval_limit=4, n=1, workers=1)
    summary = run_async_study(settings, progress=False)
    with open(tmp_path / "async" / "stability.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["preset"] for r in rows] == ["none", "k1-loss"]
    assert "async_level 2 (latest staleness), beta 0.3" in summary.read_text()
    assert (tmp_path / "async" / "curves.png").exists()
    saved = json.loads((tmp_path / "async" / "runs" / "k1-loss-s0" / "kleval_run.json").read_text())["config"]
    assert (saved["recipe"], saved["staleness"], saved["staleness_mode"], saved["kl"]["beta"]) == \
        ("async", 2, "latest", 0.3)


def test_demo_cli_passes_and_validates_beta_and_staleness_mode(monkeypatch, capsys):
    import kleval.async_study
    import kleval.demo
    from kleval.cli import main

    seen = []
    monkeypatch.setattr(kleval.async_study, "run_async_study", lambda settings, progress: seen.append(settings) or "x")
    monkeypatch.setattr(kleval.demo, "run_demo", lambda settings, progress: seen.append(settings))
    assert main(["demo", "--study", "async", "--beta", "0.1", "--staleness-mode", "latest", "--out", "o"]) == 0
    assert (seen[-1].beta, seen[-1].staleness_mode, seen[-1].async_level) == (0.1, "latest", 10)
    assert main(["demo", "--study", "async", "--out", "o"]) == 0 and (seen[-1].beta, seen[-1].staleness_mode) == \
        (1.0, "fixed")
    assert main(["demo", "--beta", "0.3", "--out", "o"]) == 0 and seen[-1].beta == 0.3  # the paper study too
    capsys.readouterr()
    for bad in (["--study", "async", "--beta", "0"], ["--study", "async", "--beta", "x"],
                ["--study", "async", "--beta", "nan"], ["--study", "async", "--beta", "0.1,0.2"],
                ["--study", "beta", "--beta", "0.1"], ["--staleness-mode", "latest"]):
        assert main(["demo", *bad, "--out", "o"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 6 and all(line.startswith("kleval demo: error: ") for line in err)
    assert len(seen) == 3
