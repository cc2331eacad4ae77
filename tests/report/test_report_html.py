"""End-to-end `kleval report`: files, byte-identical reruns, and index.html in headless Chromium."""
from __future__ import annotations

import re
import subprocess

import pytest

from kleval.cli import main
from kleval.report.screenshot import chromium_command, find_chromium, screenshot
from report.fake_study import FakeCheckpoint, kl_checkpoint, write_study

FIGURES = ("pass_at_k", "accuracy_vs_step", "training_curves", "id_vs_ood")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    checkpoints = [FakeCheckpoint("base", 0, accuracy={"add": 0.5, "sub": 0.4})]
    for preset, acc in (("none", 0.8), ("k3-loss", 0.7), ("k3-reward", 0.3)):
        for seed in (0, 1):
            for step in (10, 20):
                checkpoints.append(kl_checkpoint(preset, seed, step, {"add": acc, "sub": acc - 0.2}))
    study = write_study(root / "study", checkpoints, {"add": "id", "sub": "ood"}, num_problems=25,
                        runs_dir=root / "runs", train_steps=20)
    assert main(["report", str(study), "--out", str(root / "out"), "--resamples", "200"]) == 0
    return root / "out"


def test_report_writes_tables_figures_and_page(report_dir):
    for name in ("table.md", "table.tex", "index.html"):
        assert (report_dir / name).stat().st_size > 0
    for stem in FIGURES:
        assert (report_dir / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (report_dir / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"
    page = (report_dir / "index.html").read_text()
    assert page.count("data:image/png;base64,") == len(FIGURES)
    assert "k3-loss (ref)" in page and "<table" in page
    # Self-contained: nothing fetched from the network.
    assert not re.search(r"(src|href)=\"(https?:)?//", page)


def test_rerun_is_byte_identical(report_dir, tmp_path):
    study = report_dir.parent / "study"
    assert main(["report", str(study), "--out", str(tmp_path), "--resamples", "200"]) == 0
    written = sorted(p.relative_to(report_dir) for p in report_dir.rglob("*") if p.is_file())
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()) == written
    for path in written:
        assert (tmp_path / path).read_bytes() == (report_dir / path).read_bytes(), path


def test_missing_study_is_a_clear_error(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.skipif(find_chromium() is None, reason="headless Chromium not installed (apt-get install -y chromium chromium-driver)")
def test_index_html_renders_in_headless_chromium(report_dir, tmp_path):
    shot = screenshot(report_dir / "index.html", tmp_path / "screenshot.png", width=1280, height=2400)
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    assert pixels.shape[:2] == (2400, 1280)
    # A rendered page with a table and figures: plenty of non-white pixels, and some colour.
    rgb = pixels[..., :3]
    assert (rgb.mean(axis=2) < 0.9).mean() > 0.02
    assert (rgb.max(axis=2) - rgb.min(axis=2) > 0.3).mean() > 0.002
    # DOM check: the table really rendered its rows.
    dom = subprocess.run(chromium_command(report_dir / "index.html", "--dump-dom"), check=True, timeout=90,
                         capture_output=True, text=True).stdout
    assert dom.count("<tr>") >= 5 and "kleval report" in dom
