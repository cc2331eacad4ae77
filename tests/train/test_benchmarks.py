"""The memory benchmark and the prepared GPU check run their CPU dry runs, so neither can rot."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_train_memory_dry_run(tmp_path):
    out = tmp_path / "rows.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "train_memory.py"), "--tiny", "--lengths", "8",
                           "--batches", "2,4", "--batch-length", "8", "--whole-batch-limit", "16", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "step peak MB" in done.stdout
    rows = json.loads(out.read_text())
    assert [(r["batch"], r["length"]) for r in rows] == [(2, 8), (4, 8)]
    assert all(r["step_peak_mb"] >= 0 and r["old_estimate_mb"] >= 0 for r in rows)
    assert rows[0]["whole_batch_peak_mb"] is not None and rows[1]["whole_batch_peak_mb"] is None  # 2x8 <= 16 < 4x8


def test_gpu_check_dry_run():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_check.py"), "--tiny"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines[0]["shape"] == "tiny" and lines[1]["rows"] == 16 and lines[1]["micro_batch"] == 4
    assert lines[1]["seconds_per_step"] > 0 and lines[1]["grad_norm"] > 0  # the coin-flip reward moves the policy
