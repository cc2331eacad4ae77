"""`kleval demo --study online` on a small slice: the study it writes, and that writing it twice
from scratch gives byte-identical committable files (what reports/online_eval commits)."""
import shutil
from pathlib import Path

import pytest
from test_demo_reproducible import ROOT, _committable_files


def _run_slice(where: Path, monkeypatch) -> Path:
    from kleval.online_study import OnlineStudySettings, run_online_study

    shutil.copytree(ROOT / "assets" / "tiny-arith-base", where / "assets" / "tiny-arith-base")
    monkeypatch.chdir(where)  # as `kleval demo` runs: from a checkout root, writing a relative path
    settings = OnlineStudySettings(out=Path("online"), base=Path("assets/tiny-arith-base"), presets=("k1-reward",),
                                   steps=2, every=1, eval_limit=3, n=1)
    run_online_study(settings, progress=False)
    return where / "online"


@pytest.mark.slow
def test_online_study_slice_is_deterministic(tmp_path, monkeypatch):
    first = _run_slice(tmp_path / "a", monkeypatch)
    table = (first / "accuracy_by_step.md").read_text().splitlines()
    assert table[2] == "| step | k1-reward arith_add | k1-reward arith_sub |"
    assert [line.split(" | ")[0] for line in table[4:]] == ["| 0", "| 1", "| 2"]  # the base model, then each step
    assert (first / "accuracy_vs_step.png").exists() and (first / "study" / "results.csv").exists()
    second = _run_slice(tmp_path / "b", monkeypatch)
    files = _committable_files(first)
    assert files == _committable_files(second) and len(files) > 10
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), f"{rel} differs between two runs"
    assert not any(str(tmp_path) in (first / rel).read_text(errors="ignore") for rel in files)
