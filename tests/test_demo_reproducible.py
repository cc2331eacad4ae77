"""The demo is reproducible: a small slice of `kleval demo`, run from scratch, writes byte-identical
files to the committed fixture tests/fixtures/demo_slice/ (made by this same code path).

Compared: every file the demo writes outside the git-ignored runs/, samples/ and scores/ (what a
commit of reports/demo holds). Text files are stored verbatim; figures, index.html (which
inlines them) and the sample browser's .js files by sha256, to keep the fixture small. After an intended change of demo output,
regenerate with `KLEVAL_UPDATE_DEMO_FIXTURE=1 pytest tests/test_demo_reproducible.py` and review the diff.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "demo_slice"
HASHED_SUFFIXES = (".png", ".pdf", ".html", ".js")
IGNORED_PARTS = {"runs", "samples", "scores"}  # git-ignored under reports/ (see .gitignore)


def _committable_files(out: Path) -> list[Path]:
    return sorted(p.relative_to(out) for p in out.rglob("*")
                  if p.is_file() and p.name != ".lock" and not IGNORED_PARTS & set(p.relative_to(out).parts))


def _snapshot(out: Path) -> tuple[dict[str, bytes], dict[str, str]]:
    texts, hashes = {}, {}
    for rel in _committable_files(out):
        data = (out / rel).read_bytes()
        if rel.suffix in HASHED_SUFFIXES:
            hashes[rel.as_posix()] = hashlib.sha256(data).hexdigest()
        else:
            texts[rel.as_posix()] = data
    return texts, hashes


@pytest.mark.slow
def test_demo_slice_matches_committed_fixture(tmp_path, monkeypatch):
    from kleval.demo import DemoSettings, run_demo

    # Run as `make demo` does: from a checkout root holding assets/, writing a relative output path.
    shutil.copytree(ROOT / "assets" / "tiny-arith-base", tmp_path / "assets" / "tiny-arith-base")
    monkeypatch.chdir(tmp_path)
    settings = DemoSettings(out=Path("demo"), base=Path("assets/tiny-arith-base"), presets=("k1-reward", "k3-loss"),
                            seeds=(0,), steps=4, eval_limit=12, n=2, ks=(1, 2), real_limit=1, workers=1)
    run_demo(settings, progress=False)
    texts, hashes = _snapshot(tmp_path / "demo")
    assert "study/study.json" in texts and "table.md" in texts and "index.html" in hashes

    if os.environ.get("KLEVAL_UPDATE_DEMO_FIXTURE"):
        shutil.rmtree(FIXTURE, ignore_errors=True)
        for rel, data in texts.items():
            (FIXTURE / rel).parent.mkdir(parents=True, exist_ok=True)
            (FIXTURE / rel).write_bytes(data)
        (FIXTURE / "sha256.json").write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
        pytest.skip("fixture regenerated; review `git diff tests/fixtures/demo_slice`")

    expected_texts, _ = _snapshot(FIXTURE)
    expected_hashes = json.loads(expected_texts.pop("sha256.json"))
    assert sorted(texts) == sorted(expected_texts), "the demo writes a different set of files"
    for rel, data in texts.items():
        assert data == expected_texts[rel], f"{rel} differs from tests/fixtures/demo_slice/{rel}"
    assert hashes == expected_hashes
    header = json.loads(texts["study/study.json"])
    assert "created" not in header and "git_revision" not in header
    assert str(tmp_path) not in b"".join(texts.values()).decode()
