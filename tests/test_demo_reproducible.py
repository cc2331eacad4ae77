"""The demo is reproducible: a small slice of `kleval demo`, run from scratch, writes the files of
the committed fixture tests/fixtures/demo_slice/ (made by this same code path), equal up to the
last bits of floating point.

Compared: every file the demo writes outside the git-ignored runs/, samples/ and scores/ (what a
commit of reports/demo holds). Text files (index.html with its inlined figures cut out) are stored
verbatim and must match character for character except that decimal numbers may differ by float
rounding (relative 1e-5): another CPU (another SIMD width, another BLAS kernel) rounds float32 sums
differently, so a training log's `kl_exact` moves in the 7th digit (seen on CI) while every count,
sample and verdict stays the same. The installed versions a study.json records under "packages" are
facts about the machine, not the demo's output (a transformers release moved them on CI), so only
which packages are recorded is compared, not their versions. Figures are stored as 64x64 grey
thumbnails that must agree to within a few levels of 255. After an intended change of demo output, regenerate with
`KLEVAL_UPDATE_DEMO_FIXTURE=1 pytest tests/test_demo_reproducible.py` and review the diff.
"""
from __future__ import annotations

import io
import json
import math
import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "demo_slice"
FIGURES = "figures.json"  # in the fixture: per figure, its size and thumbnail
IGNORED_PARTS = {"runs", "samples", "scores"}  # git-ignored under reports/ (see .gitignore)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
INLINED_IMAGE = re.compile(r"data:image/(\w+);base64,[A-Za-z0-9+/=]+")
PACKAGES_BLOCK = re.compile(r'"packages": \{[^{}]*\}')
VERSION_VALUE = re.compile(r'(": )"[^"]*"')
THUMB = 64
FLOAT_REL_TOL = 1e-5
FLOAT_ABS_TOL = 1e-7
THUMB_TOL = 6  # grey levels of 255, per thumbnail pixel


def _committable_files(out: Path) -> list[Path]:
    return sorted(p.relative_to(out) for p in out.rglob("*")
                  if p.is_file() and p.name != ".lock" and not IGNORED_PARTS & set(p.relative_to(out).parts))


def _figure_summary(rel: Path, data: bytes) -> dict:
    if rel.suffix == ".pdf":
        return {"pdf": data.startswith(b"%PDF-"), "pages": len(re.findall(rb"/Type\s*/Page(?!s)", data))}
    from PIL import Image

    image = Image.open(io.BytesIO(data))
    thumb = image.convert("L").resize((THUMB, THUMB), Image.Resampling.BOX)
    return {"size": list(image.size), "thumb": thumb.tobytes().hex()}


def _snapshot(out: Path) -> tuple[dict[str, str], dict[str, dict]]:
    """(text of every text file, summary of every figure) the demo wrote under `out`."""
    texts, figures = {}, {}
    for rel in _committable_files(out):
        data = (out / rel).read_bytes()
        if rel.suffix in (".png", ".pdf"):
            figures[rel.as_posix()] = _figure_summary(rel, data)
        else:
            text = data.decode()
            texts[rel.as_posix()] = INLINED_IMAGE.sub(r"data:image/\1;base64,...", text) if rel.suffix == ".html" else text
    return texts, figures


def _without_package_versions(text: str) -> str:
    """`text` with each version in a "packages" block of a study.json replaced by "*"."""
    return PACKAGES_BLOCK.sub(lambda block: VERSION_VALUE.sub(r'\1"*"', block.group()), text)


def _differences_beyond_rounding(got: str, want: str) -> str | None:
    """None when `got` equals `want` up to float rounding of its decimal numbers and the versions of
    installed packages; else the first difference."""
    got, want = _without_package_versions(got), _without_package_versions(want)
    got_numbers, want_numbers = NUMBER.findall(got), NUMBER.findall(want)
    if NUMBER.split(got) != NUMBER.split(want) or len(got_numbers) != len(want_numbers):
        lines = [(a, b) for a, b in zip(got.splitlines() + [""], want.splitlines() + [""]) if a != b]
        return f"text: {lines[0][0][:160]!r} != {lines[0][1][:160]!r}" if lines else "text differs"
    for a, b in zip(got_numbers, want_numbers):
        exact = not any(c in a + b for c in ".eE")
        if a != b and (exact or not math.isclose(float(a), float(b), rel_tol=FLOAT_REL_TOL, abs_tol=FLOAT_ABS_TOL)):
            return f"{a} != {b}"
    return None


def _figure_difference(got: dict, want: dict) -> str | None:
    if "thumb" not in want:
        return None if got == want else f"{got} != {want}"
    if got["size"] != want["size"]:
        return f"size {got['size']} != {want['size']}"
    worst = max(abs(a - b) for a, b in zip(bytes.fromhex(got["thumb"]), bytes.fromhex(want["thumb"])))
    return None if worst <= THUMB_TOL else f"thumbnail pixels differ by up to {worst} grey levels"


@pytest.fixture(scope="module")
def demo_slice(tmp_path_factory) -> Path:
    """The slice, run once from scratch as `make demo` runs: from a checkout root holding assets/,
    writing a relative output path. Returns the demo directory."""
    from kleval.demo import DemoSettings, run_demo

    root = tmp_path_factory.mktemp("checkout")
    shutil.copytree(ROOT / "assets" / "tiny-arith-base", root / "assets" / "tiny-arith-base")
    settings = DemoSettings(out=Path("demo"), base=Path("assets/tiny-arith-base"), presets=("k1-reward", "k3-loss"),
                            seeds=(0,), steps=4, eval_limit=12, n=2, ks=(1, 2), real_limit=1, workers=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        run_demo(settings, progress=False)
    return root / "demo"


@pytest.mark.slow
def test_demo_runs_every_phase_and_reports_each_preset(demo_slice):
    import pandas as pd

    out = demo_slice
    assert (out / "index.html").is_file() and (out / "table.md").is_file() and (out / "table.tex").is_file()
    table = (out / "table.md").read_text()
    for preset in ("k1-reward", "k3-loss", "tiny-arith-base"):
        assert f"| {preset} " in table, preset
    assert "arith_add (ID)" in table and "arith_sub (OOD)" in table
    assert json.loads((out / "gradcheck.json").read_text())["all_passed"] is True
    real = pd.read_csv(out / "real_slice" / "results.csv")  # the base and each run's final step, on GSM8K
    assert sorted(real["checkpoint"]) == ["k1-reward-s0__step4", "k3-loss-s0__step4", "tiny-arith-base"]
    assert (real["task"] == "gsm8k").all() and (real["num_problems"] == 1).all()
    for run in ("k1-reward-s0", "k3-loss-s0"):
        assert (out / "runs" / run / "train_log.jsonl").is_file()


@pytest.mark.slow
def test_demo_slice_matches_committed_fixture(demo_slice):
    texts, figures = _snapshot(demo_slice)
    assert "study/study.json" in texts and "table.md" in texts and "index.html" in texts and "training_curves.png" in figures

    if os.environ.get("KLEVAL_UPDATE_DEMO_FIXTURE"):
        shutil.rmtree(FIXTURE, ignore_errors=True)
        for rel, text in texts.items():
            (FIXTURE / rel).parent.mkdir(parents=True, exist_ok=True)
            (FIXTURE / rel).write_text(text)
        (FIXTURE / FIGURES).write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
        pytest.skip("fixture regenerated; review `git diff tests/fixtures/demo_slice`")

    expected_texts, _ = _snapshot(FIXTURE)
    expected_figures = json.loads(expected_texts.pop(FIGURES))
    assert sorted(texts) == sorted(expected_texts), "the demo writes a different set of text files"
    assert sorted(figures) == sorted(expected_figures), "the demo writes a different set of figures"
    for rel, text in texts.items():
        difference = _differences_beyond_rounding(text, expected_texts[rel])
        assert difference is None, f"{rel} differs from tests/fixtures/demo_slice/{rel}: {difference}"
    for rel, summary in figures.items():
        difference = _figure_difference(summary, expected_figures[rel])
        assert difference is None, f"{rel} differs from the fixture's: {difference}"
    header = json.loads(texts["study/study.json"])
    assert "created" not in header and "git_revision" not in header
    assert str(demo_slice.parent) not in "".join(texts.values())


def test_rounding_noise_passes_and_real_changes_fail():
    """The comparison itself: the CI case (a float's 7th digit) passes; a changed count, word or value fails."""
    want = '{"kl_exact": 1.0446913242340088, "reward": 0.5, "step": 2, "run": "k1-reward-s0-46d67bd7"}'
    assert _differences_beyond_rounding(want.replace("1.0446913242340088", "1.0446909666061401"), want) is None
    assert _differences_beyond_rounding(want.replace('"step": 2', '"step": 3'), want) == "3 != 2"
    assert _differences_beyond_rounding(want.replace("0.5", "0.51"), want) == "0.51 != 0.5"
    assert _differences_beyond_rounding(want.replace("reward", "rewards"), want) is not None
    assert _differences_beyond_rounding(want.replace("46d67bd7", "46d67bd8"), want) == "8 != 7"
    thumb = bytes(range(200)).hex()
    assert _figure_difference({"size": [4, 50], "thumb": thumb}, {"size": [4, 50], "thumb": thumb}) is None
    moved = bytes([min(255, b + 40) if i < 10 else b for i, b in enumerate(range(200))]).hex()
    assert "grey levels" in _figure_difference({"size": [4, 50], "thumb": moved}, {"size": [4, 50], "thumb": thumb})
