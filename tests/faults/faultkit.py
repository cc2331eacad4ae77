"""Shared helpers of the fault tests: run kleval in a child process (bounded), kill it mid-run."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_LAUNCH = "import sys; from kleval.cli import main; sys.argv[0] = 'kleval'; sys.exit(main(sys.argv[1:]))"


def kleval_argv(*args: str) -> list[str]:
    return [sys.executable, "-c", _LAUNCH, *map(str, args)]


def child_env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false", **extra}


def run_kleval(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    """`kleval ARGS` in a child process; a hang past `timeout` raises subprocess.TimeoutExpired."""
    return subprocess.run(kleval_argv(*args), capture_output=True, text=True, timeout=timeout, env=child_env(**env))


def one_line_error(done: subprocess.CompletedProcess, status: int = 2) -> str:
    """The command failed with `status` and said why in one `kleval ...: error: ...` line, no traceback.
    (Library progress bars on stderr, e.g. transformers' weight loading, are not error lines.)"""
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower() and "|" not in line]
    assert done.returncode == status and len(errors) == 1, (done.returncode, done.stderr[-3000:])
    return errors[0]
