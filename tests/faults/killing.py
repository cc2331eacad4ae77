"""kill -9 a kleval command at random moments, rerun it, and compare with an uninterrupted run.

Shared by tests/faults/test_kills.py (a few kills) and benchmarks/faults.py (many). The child
runs in its own process group so that after killing the main process we can check that its
grading workers leave by themselves (they see EOF on their pipe) instead of lingering.

Two ways to pick the moment: `kill_at_random` draws it in seconds (a window measured on a clean
run, so the kills miss when the killed runs go faster than the measured one); `kill_at_progress`
draws it in units of work the run leaves on disk (log rows, say), so it lands mid-run whatever the
load.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from faultkit import child_env, kleval_argv


@dataclass
class KillReport:
    command: str
    kills: int = 0  # kills that landed while the command was still running
    finished_early: int = 0  # times the command ended before its kill moment
    moments: list = field(default_factory=list)
    lingering_workers: int = 0
    progress: list = field(default_factory=list)  # kill_at_progress: (units on disk at start, at the kill)


def _group_gone(pgid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def kill_at_random(argv: list[str], *, kills: int, window: tuple[float, float], rng: random.Random,
                   env: dict[str, str] | None = None, report: KillReport | None = None) -> KillReport:
    """Start `kleval argv` `kills` times, SIGKILL each at a random moment within `window` seconds."""
    report = report or KillReport(argv[0])
    for _ in range(kills):
        moment = rng.uniform(*window)
        child = subprocess.Popen(kleval_argv(*argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env=child_env(**(env or {})), start_new_session=True)
        try:
            child.wait(timeout=moment)
            report.finished_early += 1
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
            child.wait()
            report.kills += 1
            report.moments.append(round(moment, 2))
        if not _group_gone(child.pid, 20):
            report.lingering_workers += 1
            os.killpg(child.pid, signal.SIGKILL)
    return report


def kill_at_progress(argv: list[str], *, kills: int, progress: Callable[[], int], total: int, rng: random.Random,
                     env: dict[str, str] | None = None, report: KillReport | None = None,
                     timeout: float = 300) -> KillReport:
    """Start `kleval argv` `kills` times, SIGKILL each once it has added a random number of units of work.

    `progress()` counts the units on disk now (complete log rows, say) and `total` is what a whole
    run leaves. Each run is killed as soon as it has added between 1 and its share of what is left
    (split evenly among this kill, those still to come and the run that finishes the job), so the
    kill finds it with work still to do however fast or slow the machine is: no clock is involved.
    A run counts as killed only when SIGKILL is what ended it (its exit status says so); one that
    exited first counts in finished_early. A run that has not reached its kill point after `timeout`
    seconds is a hang: TimeoutError.
    """
    report = report or KillReport(argv[0])
    for left in range(kills, 0, -1):
        start = progress()
        target = start + rng.randint(1, max(1, (total - start) // (left + 1)))
        child = subprocess.Popen(kleval_argv(*argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env=child_env(**(env or {})), start_new_session=True)
        started = time.monotonic()
        while child.poll() is None and progress() < target and time.monotonic() - started < timeout:
            time.sleep(0.02)
        reached, moment = progress(), time.monotonic() - started
        child.send_signal(signal.SIGKILL)  # a no-op once poll() has seen the exit
        if child.wait() == -signal.SIGKILL:
            if reached < target:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGKILL)
                raise TimeoutError(f"{argv[0]} went from {start} to {reached} units of work in {timeout} s, "
                                   f"not to {target}")
            report.kills += 1
            report.moments.append(round(moment, 2))
            report.progress.append((start, reached))
        else:
            report.finished_early += 1
        if not _group_gone(child.pid, 20):
            report.lingering_workers += 1
            os.killpg(child.pid, signal.SIGKILL)
    return report


def study_rows(study: Path) -> int:
    """Complete rows in the study's samples/ and scores/ logs (a torn last line does not count)."""
    return sum(path.read_bytes().count(b"\n") for folder in ("samples", "scores")
               for path in (study / folder).rglob("*.jsonl"))


def train_units(run: Path) -> int:
    """Complete train_log.jsonl rows plus global_step_N directories (a save begins with its directory)."""
    log = run / "train_log.jsonl"
    return (log.read_bytes().count(b"\n") if log.exists() else 0) + len(list(run.glob("global_step_*")))


def run_to_end(argv: list[str], *, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run(kleval_argv(*argv), capture_output=True, text=True, timeout=timeout, env=child_env(**(env or {})))
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def lock_is_free(directory: Path) -> bool:
    """True when nobody holds the directory's flock (a kill -9 must never leave it held)."""
    path = directory / ".lock"
    if not path.exists():
        return True
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(fh, fcntl.LOCK_UN)
    return True


def study_fingerprint(study: Path) -> dict[str, object]:
    """What must be identical after kills and resume: every log's rows (order-free, each exactly
    once), results.csv and checkpoints.json."""
    print_ = {}
    for folder in ("samples", "scores"):
        for path in sorted((study / folder).rglob("*.jsonl")):
            rows = [json.dumps(json.loads(line), sort_keys=True) for line in path.read_text().splitlines() if line.strip()]
            print_[str(path.relative_to(study))] = sorted(rows)
    for name in ("results.csv", "checkpoints.json"):
        path = study / name
        print_[name] = path.read_text() if path.exists() else None
    return print_


def files_fingerprint(directory: Path, patterns: tuple[str, ...]) -> dict[str, str]:
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for pattern in patterns for p in sorted(directory.rglob(pattern))}


def train_fingerprint(run: Path) -> dict[str, object]:
    """Final weights (tensor by tensor) and the log's rows without wall-clock fields."""
    from safetensors.torch import load_file

    last = sorted(run.glob("global_step_*"), key=lambda p: int(p.name.rsplit("_", 1)[1]))[-1]
    weights = load_file(str(last / "model.safetensors"))
    rows = []
    for line in (run / "train_log.jsonl").read_text().splitlines():
        row = json.loads(line)
        rows.append({k: v for k, v in row.items() if "time" not in k and "seconds" not in k})
    return {"step_dir": last.name, "weights": {k: hashlib.sha256(v.numpy().tobytes()).hexdigest() for k, v in weights.items()},
            "log": rows}
