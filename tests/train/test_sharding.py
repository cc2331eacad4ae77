"""FSDP2 (`--fsdp`) against plain data parallelism: two gloo ranks on the CPU, run for real.

The same command with and without --fsdp must train the same model (same rollouts, losses within
float tolerance, parameters within 1e-5); the FSDP checkpoint is a plain HF checkpoint that
`kleval eval` scores; a resumed FSDP run ends bit-for-bit where the straight run does. NCCL,
GPUs, bf16 kernels on GPU and the vLLM weight push are not exercised here (docs/training.md).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from kleval.train.checkpoint import load_trainer_state
from kleval.train.diagnostics import read_log
from kleval.train.tiny import COMMITTED_BASE

COMPARED = ("reward", "accuracy", "response_length", "loss", "pg_loss", "kl_loss", "kl_exact", "kl_k3",
            "grad_norm", "grad_norm_kl", "grad_norm_pg")
RUNNER = Path(__file__).with_name("torchrun_commands.py")


def _train_args(out, *extra):
    return ["train", "--tiny", "--model", str(COMMITTED_BASE), "--preset", "k3-both", "--prompts-per-step", "4",
            "--samples-per-prompt", "4", "--save-every", "2", "--grad-norm-split-every", "1", "--out", str(out),
            "--no-progress", *extra]


def _torchrun(commands):
    """Start one 2-rank gloo launch running `commands` (kleval argument lists) in order."""
    launch = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
              str(RUNNER), json.dumps(commands)]
    return subprocess.Popen(launch, env={**os.environ, "OMP_NUM_THREADS": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(launch, commands):
    stdout, stderr = launch.communicate(timeout=240)
    assert launch.returncode == 0, stderr[-3000:]
    assert stdout.count("done:") == len(commands)  # rank 0 alone reports


def _weights(step_dir):
    from safetensors.torch import load_file

    return load_file(step_dir / "model.safetensors")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """3 steps each on 2 gloo ranks: data parallel; FSDP; FSDP stopped at step 2 and resumed; FSDP bf16."""
    if not (COMMITTED_BASE / "model.safetensors").exists():
        pytest.skip("needs the committed tiny base model")
    root = tmp_path_factory.mktemp("sharding")
    data_parallel = [_train_args(root / "dp", "--steps", "3")]
    sharded = [_train_args(root / "fsdp", "--steps", "3", "--fsdp"),
               _train_args(root / "resumed", "--steps", "2", "--fsdp"),
               _train_args(root / "resumed", "--steps", "3", "--fsdp"),
               _train_args(root / "bf16", "--steps", "2", "--fsdp", "--bf16", "--rollout", "hf")]
    launches = [(_torchrun(data_parallel), data_parallel), (_torchrun(sharded), sharded)]
    for launch, commands in launches:
        _finish(launch, commands)
    return root


@pytest.mark.slow  # the `runs` fixture: two concurrent 2-rank launches, ~35 s on 2 cores
def test_fsdp_trains_the_same_model_as_data_parallel(runs):
    dp_rows, fsdp_rows = read_log(runs / "dp"), read_log(runs / "fsdp")
    assert [r["step"] for r in dp_rows] == [r["step"] for r in fsdp_rows] == [1, 2, 3]
    assert any(r["kl_loss"] > 0 and r["grad_norm_kl"] > 0 for r in dp_rows)  # the KL gradient path ran
    for dp, fsdp in zip(dp_rows, fsdp_rows):
        for key in COMPARED:
            assert fsdp[key] == pytest.approx(dp[key], rel=1e-4, abs=1e-5), (dp["step"], key)
    for step in (2, 3):
        dp, fsdp = _weights(runs / "dp" / f"global_step_{step}"), _weights(runs / "fsdp" / f"global_step_{step}")
        assert sorted(dp) == sorted(fsdp)  # same names: tied lm_head not written twice
        base = _weights(COMMITTED_BASE)
        for name in dp:
            assert fsdp[name].dtype == dp[name].dtype and fsdp[name].shape == dp[name].shape
            assert torch.allclose(fsdp[name], dp[name], atol=1e-5), name
        assert any(not torch.equal(dp[name], base[name]) for name in dp)  # training moved the weights


@pytest.mark.slow  # the `runs` fixture: two concurrent 2-rank launches, ~35 s on 2 cores
def test_fsdp_checkpoint_is_a_plain_hf_checkpoint_that_kleval_evaluates(runs, tmp_path):
    from transformers import AutoModelForCausalLM

    from kleval.cli import main

    step_dir = runs / "fsdp" / "global_step_3"
    model = AutoModelForCausalLM.from_pretrained(step_dir)
    reference = _weights(runs / "dp" / "global_step_3")
    loaded = model.state_dict()
    assert all(torch.allclose(loaded[name], tensor, atol=1e-5) for name, tensor in reference.items())
    assert json.loads((step_dir / "kleval_run.json").read_text())["config"]["sharding"] == "fsdp"
    code = main(["eval", "--checkpoints", str(step_dir), "--tasks", "arith_add", "--limit", "4", "--max-tokens", "5",
                 "--temperature", "0", "--out", str(tmp_path / "study"), "--no-progress"])
    assert code == 0
    table = (tmp_path / "study" / "table.md").read_text()
    assert "k3-both" in table and "arith_add" in table


@pytest.mark.slow  # the `runs` fixture: two concurrent 2-rank launches, ~35 s on 2 cores
def test_fsdp_resume_is_exact(runs):
    straight, resumed = read_log(runs / "fsdp"), read_log(runs / "resumed")
    assert [r["step"] for r in resumed] == [1, 2, 3]
    for a, b in zip(straight, resumed):
        assert {k: a[k] for k in COMPARED} == {k: b[k] for k in COMPARED}
    a, b = _weights(runs / "fsdp" / "global_step_3"), _weights(runs / "resumed" / "global_step_3")
    assert all(torch.equal(a[name], b[name]) for name in a)
    state = load_trainer_state(runs / "resumed" / "global_step_3")
    assert len(state["rank_rng"]) == 2  # every rank's streams, not rank 0's alone
    assert "model.layers.0.mlp.up_proj.weight" in state["optimizer"]["state"]  # full, keyed by name


@pytest.mark.slow  # the `runs` fixture: two concurrent 2-rank launches, ~35 s on 2 cores
def test_fsdp_with_bf16_compute_and_hf_rollouts(runs):
    """Mixed precision (bf16 compute, fp32 master weights and reduction) and `generate` under FSDP."""
    rows = read_log(runs / "bf16")
    assert [r["step"] for r in rows] == [1, 2] and all(r["grad_norm"] > 0 for r in rows)
    weights = _weights(runs / "bf16" / "global_step_2")
    assert {t.dtype for t in weights.values()} == {torch.float32}  # the master weights, not bf16 copies


def test_sharding_setting_is_checked_and_needs_torchrun(monkeypatch, tmp_path):
    from kleval.errors import ConfigError
    from kleval.train.loop import train
    from kleval.train.tiny import tiny_config

    with pytest.raises(ConfigError, match="sharding"):
        tiny_config("k3-loss", base_dir=COMMITTED_BASE, sharding="zero3")
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    with pytest.raises(ConfigError, match="torchrun"):
        train(tiny_config("k3-loss", base_dir=COMMITTED_BASE, sharding="fsdp"), tmp_path, progress=False)


def test_norm_helpers_match_torch_on_an_unsharded_model():
    from kleval.train import sharding

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    model(torch.randn(5, 3)).pow(2).sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    expected = float(torch.sqrt(sum(g.pow(2).sum() for g in grads)))
    assert sharding.gradient_norm(grads) == pytest.approx(expected, rel=1e-6)
    assert not sharding.is_sharded(model)
    assert sharding.clip_gradients(model, 0.5) == pytest.approx(expected, rel=1e-6)
    assert sharding.gradient_norm([p.grad for p in model.parameters()]) == pytest.approx(min(0.5, expected), rel=1e-5)


def test_a_run_dir_from_before_a_new_setting_still_resumes(tmp_path):
    """A run file without the `sharding` key (older kleval) means the default, not a changed setting."""
    from kleval.errors import ConfigError
    from kleval.train import checkpoint as ckpt
    from kleval.train.session import check_run_dir as _check_run_dir
    from kleval.train.tiny import tiny_config

    config = tiny_config("k3-loss", base_dir=COMMITTED_BASE)
    ckpt.write_run_file(tmp_path, config, step=0)
    meta = json.loads((tmp_path / ckpt.RUN_FILE).read_text())
    del meta["config"]["sharding"]
    (tmp_path / ckpt.RUN_FILE).write_text(json.dumps(meta))
    _check_run_dir(tmp_path, config)
    with pytest.raises(ConfigError, match="sharding"):
        _check_run_dir(tmp_path, config.with_overrides(sharding="fsdp"))


def test_ranks_agree_on_the_shared_prompt_path():
    """Rank 0 has padded prompts (one full forward per micro-batch), rank 1 does not (prompt forward
    + response forward): the path is agreed collectively, so FSDP's collectives match."""
    if not (COMMITTED_BASE / "model.safetensors").exists():
        pytest.skip("needs the committed tiny base model")
    launch = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
              str(Path(__file__).with_name("fsdp_shared_prompts.py")), str(COMMITTED_BASE)]
    try:
        done = subprocess.run(launch, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the ranks hung: they issued different collectives")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rank 0: own choice [1], agreed [1], ok" in done.stdout
    assert "rank 1: own choice [2], agreed [1], ok" in done.stdout
