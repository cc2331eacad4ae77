"""Stale rollouts: the sampling-version schedules, and that the loop trains each batch with the policy
version the schedule names (counted by the optimizer's own step counter when the batch is sampled)."""
import itertools
import json

import pytest

from kleval.errors import ConfigError
from kleval.train import loop
from kleval.train.config import TrainConfig
from kleval.train.staleness import sampling_versions
from kleval.train.tiny import COMMITTED_BASE, tiny_config


def test_fixed_mode_is_exactly_n_stale_after_warm_up():
    versions = sampling_versions(20, 3, "fixed", seed=0)
    assert [j - 1 - versions[j] for j in range(1, 21)] == [0, 1, 2] + [3] * 17


@pytest.mark.parametrize("depth", [1, 2, 10])
def test_latest_mode_stays_within_the_bound_and_never_goes_back(depth):
    versions = sampling_versions(300, depth, "latest", seed=0)
    staleness = [j - 1 - versions[j] for j in range(1, 301)]
    assert staleness[0] == 0 and all(0 <= s <= depth for s in staleness)
    assert all(a <= b for a, b in itertools.pairwise(versions[1:]))  # weights only get newer
    assert versions == sampling_versions(300, depth, "latest", seed=0)  # seeded: the same schedule every time
    # The sampler never waits for the trainer except at the barrier, so after the first batch it is at
    # least one update behind (update j - 1 needs batch j - 1 first).
    assert min(staleness[1:]) >= 1


def test_latest_mode_varies_where_fixed_does_not():
    latest = sampling_versions(300, 10, "latest", seed=0)
    staleness = [j - 1 - latest[j] for j in range(12, 301)]
    assert len(set(staleness)) >= 5 and max(staleness) == 10 and min(staleness) < 5
    assert latest != sampling_versions(300, 10, "latest", seed=1)
    assert sampling_versions(5, 0, "latest", seed=0) == [0, 0, 1, 2, 3, 4]  # depth 0: on-policy either way


def test_config_records_the_mode_only_for_stale_runs():
    assert "staleness_mode" not in TrainConfig().to_dict()  # on-policy: nothing to schedule
    stale = TrainConfig(staleness=2, staleness_mode="latest")
    assert stale.to_dict()["staleness_mode"] == "latest"
    assert TrainConfig.from_dict(stale.to_dict()) == stale
    with pytest.raises(ConfigError, match="needs staleness > 0"):
        TrainConfig(staleness_mode="latest")
    with pytest.raises(ConfigError, match="staleness_mode must be one of"):
        TrainConfig(staleness=1, staleness_mode="sometimes")


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    if (COMMITTED_BASE / "model.safetensors").exists():
        return COMMITTED_BASE
    from kleval.train.base import build_tiny_base

    return build_tiny_base(tmp_path_factory.mktemp("base"), steps=20, batch_size=64)


@pytest.mark.parametrize("mode", ["fixed", "latest"])
def test_each_batch_is_sampled_by_the_scheduled_policy_version(base_dir, tmp_path, monkeypatch, mode):
    from kleval.train.diagnostics import read_log

    config = tiny_config("k1-reward", base_dir=base_dir, steps=8, prompts_per_step=2, samples_per_prompt=2,
                         staleness=3, staleness_mode=mode)
    expected = sampling_versions(8, 3, mode, config.seed)
    sampled_after = []  # optimizer updates made when each batch was sampled, in sampling order

    def counting_collect(run, *, version):
        state = run.optimizer.state
        sampled_after.append(int(next(iter(state.values()))["step"]) if state else 0)
        assert sampled_after[-1] == version
        return original(run, version=version)

    original = loop.collect_rollout
    monkeypatch.setattr(loop, "collect_rollout", counting_collect)
    loop.train(config, tmp_path, progress=False)
    assert sampled_after == expected[1:]  # batches are sampled in step order, each by its scheduled version
    rows = read_log(tmp_path)
    assert [r["rollout_staleness"] for r in rows] == [j - 1 - expected[j] for j in range(1, 9)]
    for row in rows:  # a batch trained by the policy that sampled it has importance weights of exactly 1
        assert (row["importance_weight_max"] == 1.0) == (row["rollout_staleness"] == 0)
    saved = json.loads((tmp_path / "kleval_run.json").read_text())["config"]
    assert (saved["staleness"], saved["staleness_mode"]) == (3, mode)


def test_cli_staleness_mode_applies_to_the_async_recipe(capsys):
    import argparse

    from kleval.cli import main
    from kleval.commands.train import _config, add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    config = _config(parser.parse_args(["--tiny", "--recipe", "async", "--staleness-mode", "latest", "--export", "verl"]))
    assert (config.staleness, config.staleness_mode) == (10, "latest")
    assert main(["train", "--tiny", "--staleness-mode", "latest", "--export", "verl"]) == 2
    assert "needs staleness > 0" in capsys.readouterr().err
