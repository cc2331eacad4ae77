"""The machine and the world misbehave: hostile answers graded on a saturated CPU, a full disk, a
read-only --out, a server that stalls, fails, truncates or hangs up, and hostile checkpoints
(pickles, custom code, symlinks, '../' in names)."""
from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faultkit import one_line_error, run_kleval
from hostile_answers import hostile_completions
from stub_openai import StubOpenAI

from kleval.types import Status
from kleval.verify import VerifierPool, VerifyItem

pytestmark = pytest.mark.faults
SECRET = "sk-kleval-test-SECRET-9876543210"


def hostile_items() -> list[VerifyItem]:
    return [VerifyItem("3", c, "math", policy) for policy in ("default", "gsm8k") for c in hostile_completions()]


def grade(items, timeout_s=10.0):
    with VerifierPool(workers=2, timeout_s=timeout_s) as pool:
        started = time.monotonic()
        verdicts = pool.submit(items).result(timeout=600)
        return verdicts, time.monotonic() - started, pool.stats


def saturate_cpu(processes: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]


@pytest.mark.slow
def test_hostile_answers_under_load_get_the_idle_verdicts(tmp_path):
    items = hostile_items()
    assert len(items) >= 50
    idle, _, _ = grade(items)
    burners = saturate_cpu(os.cpu_count() or 2)
    try:
        loaded, seconds, stats = grade(items)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert [v.status for v in loaded] == [v.status for v in idle]
    assert [v.pred_canonical for v in loaded] == [v.pred_canonical for v in idle]
    assert not any(v.status is Status.CRASH for v in idle)
    assert stats.max_kill_lateness_s < 2.0


def _model(root: Path) -> Path:
    model = root / "run" / "served"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"")
    return model


def _eval(server, model, out, data_dir, *extra, config: Path | None = None, timeout=180):
    argv = ["eval", "--backend", "openai", "--checkpoints", model, "--tokenizer", "tok", "--tasks", "gsm8k",
            "--limit", "6", "--n", "4", "--chunk-size", "2", "--out", out, "--data-dir", data_dir,
            "--verify-workers", "1", "--no-progress", *extra]
    if config is not None:
        argv[1:1] = ["--config", config]
    return run_kleval(*argv, timeout=timeout, OPENAI_BASE_URL=server.base_url)


@pytest.fixture()
def mountpoint(tmp_path):
    point = tmp_path / "mnt"
    point.mkdir()
    yield point
    subprocess.run(["umount", str(point)], capture_output=True)


def _mount(point: Path, options: str) -> None:
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'not root'}); the disk tests need one")


def test_full_disk_is_one_line_and_resumable_once_space_is_back(tmp_path, mountpoint, data_dir):
    _mount(mountpoint, "size=256k")
    model = _model(tmp_path)
    with StubOpenAI(length=20_000) as server:
        clean = tmp_path / "clean"
        assert _eval(server, model, clean, data_dir).returncode == 0
        out = mountpoint / "study"
        line = one_line_error(_eval(server, model, out, data_dir))
        assert "No space left on device" in line and "rerun" in line
        subprocess.run(["mount", "-o", "remount,size=64m", str(mountpoint)], check=True)
        done = _eval(server, model, out, data_dir)
        assert done.returncode == 0, done.stderr
    from killing import study_fingerprint

    assert study_fingerprint(out) == study_fingerprint(clean)


def test_read_only_out_is_one_line(tmp_path, mountpoint, data_dir):
    _mount(mountpoint, "ro,size=1m")
    with StubOpenAI(length=100) as server:
        line = one_line_error(_eval(server, _model(tmp_path), mountpoint / "study", data_dir))
    assert "Read-only file system" in line and str(mountpoint) in line


@pytest.mark.parametrize("mode,expected", [("stall", "timed out"), ("500", "HTTP 500"), ("truncate", "invalid JSON"),
                                           ("drop", "failed after 3 attempts")])
def test_misbehaving_server_bounded_retries_clear_error_no_key(tmp_path, data_dir, mode, expected):
    model = _model(tmp_path)
    config = tmp_path / "study.toml"
    out = tmp_path / "study"
    with StubOpenAI(mode=mode) as server:
        config.write_text(f'backend_options = {{api_key = "{SECRET}", timeout = 1, max_retries = 2, backoff = 0.05}}\n')
        started = time.monotonic()
        done = _eval(server, model, out, data_dir, config=config, timeout=120)
        seconds = time.monotonic() - started
        requests = server.requests
    line = one_line_error(done)
    assert expected in line, line
    assert SECRET not in done.stderr + done.stdout
    assert seconds < 60 and requests <= 3 * 12  # bounded: at most 1 + max_retries tries per request
    for path in out.rglob("*") if out.exists() else []:
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path


class _Payload:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (eval, (f"open({self.marker!r}, 'w').write('pwned')",))


def _snapshot(root: Path, skip: Path) -> set[str]:
    return {str(p) for p in root.rglob("*") if skip not in p.parents and p != skip}


@pytest.mark.slow
def test_hostile_checkpoints_run_nothing_and_write_nothing_outside_the_study(tiny_checkpoint, tmp_path, data_dir):
    marker = tmp_path / "marker"
    common = ["--tasks", "gsm8k", "--limit", "1", "--max-tokens", "2", "--data-dir", data_dir, "--no-progress"]
    # pickled weights and training_args.bin in a TRL step directory
    trl = tmp_path / "trl_run" / "checkpoint-5"
    shutil.copytree(tiny_checkpoint, trl)
    (trl / "model.safetensors").unlink()
    (trl / "pytorch_model.bin").write_bytes(pickle.dumps(_Payload(marker)))
    (trl / "training_args.bin").write_bytes(pickle.dumps(_Payload(marker)))
    out = tmp_path / "study_pickle"
    done = run_kleval("eval", "--checkpoints", trl, "--out", out, *common, timeout=240)
    assert not marker.exists(), "a pickle in a checkpoint ran"
    if done.returncode != 0:
        one_line_error(done)
    # custom model code named in config.json's auto_map
    custom = tmp_path / "custom"
    shutil.copytree(tiny_checkpoint, custom)
    config = json.loads((custom / "config.json").read_text())
    config["auto_map"] = {"AutoConfig": "evil.EvilConfig", "AutoModelForCausalLM": "evil.EvilModel"}
    (custom / "config.json").write_text(json.dumps(config))
    (custom / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('pwned')\n")
    done = run_kleval("eval", "--checkpoints", custom, "--out", tmp_path / "study_custom", *common, timeout=240)
    assert not marker.exists(), "auto_map code ran"
    if done.returncode != 0:
        one_line_error(done)
    # symlinks out of the checkpoint directory, and a study whose checkpoints.json labels escape it
    linked = tmp_path / "linked"
    linked.mkdir()
    for item in tiny_checkpoint.iterdir():
        (linked / item.name).symlink_to(item)
    study = tmp_path / "study_names"
    study.mkdir()
    (study / "checkpoints.json").write_text(json.dumps([{"label": "../../escaped", "path": str(linked), "format": "hf"}]))
    before = _snapshot(tmp_path, study)
    line = one_line_error(run_kleval("eval", "--checkpoints", linked, "--out", study, *common, timeout=240))
    assert "cannot name a file in the study" in line
    assert _snapshot(tmp_path, study) == before  # nothing written outside the study directory
