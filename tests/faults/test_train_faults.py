"""Training runs under hostile or damaged run directories: a planted pickle is never executed,
damaged resume state is a one-line error, a torn log line is survived, and one run directory
has one writer (an OS lock that a kill -9 cannot leave stale)."""
from __future__ import annotations

import json
import pickle
import signal
import subprocess
import time

import pytest
from faultkit import child_env, kleval_argv, one_line_error, run_kleval

from kleval.errors import CheckpointError
from kleval.train.checkpoint import TENSOR_FILE, load_trainer_state, run_lock
from kleval.train.diagnostics import read_log
from kleval.train.loop import train
from kleval.train.tiny import COMMITTED_BASE, tiny_config

pytestmark = pytest.mark.faults
SMALL = dict(prompts_per_step=2, samples_per_prompt=2, max_new_tokens=8)
TINY_CLI = ("train", "--tiny", "--prompts-per-step", "2", "--samples-per-prompt", "2", "--max-new-tokens", "8",
            "--no-progress")


class _Payload:
    """Unpickling this writes a marker file: proof that a pickle ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (eval, (f"open({self.marker!r}, 'w').write('pwned')",))


@pytest.fixture(scope="module")
def base_dir():
    if not (COMMITTED_BASE / "model.safetensors").exists():
        pytest.skip("the committed tiny base is absent")
    return COMMITTED_BASE


@pytest.fixture(scope="module")
def two_step_run(base_dir, tmp_path_factory):
    run = tmp_path_factory.mktemp("run") / "r"
    train(tiny_config("k3-loss", base_dir=base_dir, steps=2, save_every=1, **SMALL), run, progress=False)
    return run


def test_resume_finds_a_planted_pickle_and_refuses_it(tmp_path):
    from kleval.train.checkpoint import latest_resumable

    step = tmp_path / "run" / "global_step_3"
    step.mkdir(parents=True)
    marker = tmp_path / "marker"
    (step / "trainer_state.pt").write_bytes(pickle.dumps(_Payload(marker)))
    with pytest.raises(CheckpointError, match="is a pickle, which can run code"):
        latest_resumable(tmp_path / "run")
    assert not marker.exists()


@pytest.mark.slow
def test_a_planted_pickle_in_the_run_dir_is_refused_never_run(tmp_path):
    run = tmp_path / "run"
    step = run / "global_step_7"
    step.mkdir(parents=True)
    marker = tmp_path / "marker"
    (step / "trainer_state.pt").write_bytes(pickle.dumps(_Payload(marker)))
    (step / "kleval_run.json").write_text(json.dumps({"step": 7}))
    done = run_kleval(*TINY_CLI, "--steps", "8", "--out", run, timeout=180)
    line = one_line_error(done)
    assert "trainer_state.pt is a pickle" in line and "does not load it" in line
    assert not marker.exists()


@pytest.mark.slow
def test_damaged_resume_state_is_a_one_line_error(two_step_run, tmp_path):
    import shutil

    assert load_trainer_state(two_step_run / "global_step_2")["optimizer"]["state"]
    damaged = tmp_path / "damaged"
    shutil.copytree(two_step_run, damaged)
    tensors = damaged / "global_step_2" / TENSOR_FILE
    tensors.write_bytes(tensors.read_bytes()[: tensors.stat().st_size // 2])  # truncated by a full disk, say
    with pytest.raises(CheckpointError, match="unreadable"):
        load_trainer_state(damaged / "global_step_2")
    done = run_kleval(*TINY_CLI, "--steps", "3", "--out", damaged, timeout=180)
    assert "trainer_state.safetensors: unreadable" in one_line_error(done)
    (damaged / "global_step_2" / "trainer_state.json").write_text('{"format": 1, "tensor_keys": [], "state": {"$tensor": "t9"}}')
    with pytest.raises(CheckpointError):
        load_trainer_state(damaged / "global_step_2")


def test_resume_survives_a_torn_last_log_line(two_step_run, base_dir, tmp_path):
    import shutil

    run = tmp_path / "torn"
    shutil.copytree(two_step_run, run)
    with open(run / "train_log.jsonl", "a") as log:
        log.write('{"step": 3, "reward": 0.')  # what a kill -9 mid-write leaves
    train(tiny_config("k3-loss", base_dir=base_dir, steps=3, save_every=1, **SMALL), run, progress=False)
    assert [row["step"] for row in read_log(run)] == [1, 2, 3]


def test_a_second_train_on_one_run_dir_is_refused(tmp_path):
    run = tmp_path / "busy"
    with run_lock(run):
        done = run_kleval(*TINY_CLI, "--steps", "1", "--out", run, timeout=180)
    line = one_line_error(done)
    assert "is in use" in line and "kleval train" in line


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    run = tmp_path / "killed"
    hold = "import sys, time; from pathlib import Path; from kleval.train.checkpoint import run_lock\n" \
           "with run_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(600)\n"
    holder = subprocess.Popen([kleval_argv()[0], "-c", hold, str(run)], stdout=subprocess.PIPE, text=True, env=child_env())
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(Exception, match="is in use"):
            with run_lock(run):
                pass
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    finally:
        if holder.poll() is None:
            holder.kill()
    deadline = time.monotonic() + 10
    with run_lock(run):  # free again at once: the kernel dropped the dead holder's lock
        assert time.monotonic() < deadline
