"""A plain (non-editable) `pip install .` carries tasks/, evals/ and assets/: the CI study runs
from another directory with nothing but the installed package."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _copy_tracked_tree(destination: Path) -> None:
    """The files git would ship (tracked + new, not ignored), symlinks kept as symlinks."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to copy the source tree")
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)


def _fresh_venv(path: Path) -> Path:
    """A new venv that sees this interpreter's installed dependencies (torch, transformers, pip,
    setuptools) through a .pth file, so nothing is downloaded; kleval itself is not visible."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "_shared_dependencies.pth").write_text(ours + "\n", encoding="utf-8")
    return python


def test_wheel_install_runs_the_ci_study_from_another_directory(tmp_path):
    source, elsewhere = tmp_path / "src", tmp_path / "elsewhere"
    _copy_tracked_tree(source)
    elsewhere.mkdir()
    python = _fresh_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KLEVAL_TASKS_DIR", "VIRTUAL_ENV")}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    str(source)], check=True, env=env, cwd=elsewhere)
    where = subprocess.run([str(python), "-c", "import kleval; print(kleval.__file__)"], check=True, env=env,
                           cwd=elsewhere, capture_output=True, text=True).stdout.strip()
    assert where.startswith(str(tmp_path / "venv")), where  # the installed copy, not the checkout
    shutil.rmtree(source)  # nothing may be read from the source tree any more
    kleval = tmp_path / "venv" / "bin" / "kleval"
    run = subprocess.run([str(kleval), "eval", "--config", "evals/ci.toml", "--out", "study", "--limit", "5",
                          "--no-progress"], env=env, cwd=elsewhere, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "arith_add" in run.stdout and "arith_sub" in run.stdout
    study = json.loads((elsewhere / "study" / "study.json").read_text())
    assert sorted(study["tasks"]) == ["arith_add", "arith_sub"]
    checkpoints = json.loads((elsewhere / "study" / "checkpoints.json").read_text())
    assert checkpoints[0]["path"].startswith(str(tmp_path / "venv"))  # the bundled tiny model
    # a bundled study spec by name, and `python -m kleval`
    listed = subprocess.run([str(python), "-m", "kleval", "tasks"], env=env, cwd=elsewhere, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0 and "math500" in listed.stdout, listed.stderr[-2000:]
    # a task whose problems come from a bundled data file (assets/countdown/)
    shown = subprocess.run([str(python), "-m", "kleval", "tasks", "--show", "countdown"], env=env, cwd=elsewhere,
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and "problems=500" in shown.stdout, shown.stderr[-2000:]
