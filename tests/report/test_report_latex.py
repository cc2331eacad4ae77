"""table.tex: every row spans exactly the tabular's columns (spanners over the right columns),
`$p < 0.05$` in math mode, and the file compiles with pdflatex (when installed; `make test`
installs it where it can)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from kleval.report.render import latex_escape, to_latex
from kleval.report.study import Study
from kleval.report.table import compute_table
from report.fake_study import FakeCheckpoint, kl_checkpoint, write_study

TASKS = {"add_one": "id", "mul": "id", "sub": "ood"}
NASTY = "<script>alert(1)</script> & 50% of $x_1$ #2 {a} ~b^c \\frac{1}{ |x| > 3"


@pytest.fixture(scope="module")
def table_tex(tmp_path_factory):
    checkpoints = [FakeCheckpoint("base-model", 0, accuracy={t: 0.5 for t in TASKS})]
    for preset, acc in (("k3-loss", 0.7), ("k3-reward", 0.15)):
        for seed in (0, 1, 2):  # three seeds: enough for the table's significance test and its caption
            checkpoints.append(kl_checkpoint(preset, seed, 20, {t: acc for t in TASKS}))
    study = write_study(tmp_path_factory.mktemp("study"), checkpoints, TASKS, num_problems=30)
    return to_latex(compute_table(Study(study), num_resamples=200))


def _cells(row: str) -> int:
    """How many tabular columns one row fills (a \\multicolumn{N} counts N)."""
    parts = re.split(r"(?<!\\)&", row.rstrip().removesuffix(r"\\"))
    return sum(int(m.group(1)) if (m := re.search(r"\\multicolumn\{(\d+)\}", p)) else 1 for p in parts)


def test_every_row_fills_exactly_the_columns_and_spanners_sit_over_their_tasks(table_tex):
    spec = re.search(r"\\begin\{tabular\}\{(\w+)\}", table_tex).group(1)
    body = table_tex.split(r"\toprule")[1].split(r"\bottomrule")[0]
    rows = [line for line in body.splitlines() if line.rstrip().endswith(r"\\")]
    assert len(rows) >= 2 + 3
    for row in rows:
        assert _cells(row) == len(spec), row
    header, titles = rows[0], rows[1]
    # "In distribution" spans the ID columns (add_one, mul, and their average), starting at column 5
    title_cells = re.split(r"(?<!\\)&", titles)
    first_spanner = re.split(r"(?<!\\)&", header).index(
        next(p for p in re.split(r"(?<!\\)&", header) if "In distribution" in p))
    assert first_spanner == 4 and "add" in title_cells[4]
    assert r"\cmidrule(lr){5-7}" in table_tex and r"\cmidrule(lr){8-8}" in table_tex


def test_threshold_is_math_and_no_raw_angle_brackets_in_text(table_tex):
    assert "$p < 0.05$" in table_tex
    text_mode = re.sub(r"\$[^$]*\$", "", table_tex)  # drop math
    assert "<" not in text_mode and ">" not in text_mode
    assert latex_escape("a<b>c|d") == r"a\textless{}b\textgreater{}c\textbar{}d"


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
def test_table_compiles_with_pdflatex(table_tex, tmp_path):
    (tmp_path / "table.tex").write_text(table_tex, encoding="utf-8")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n\\begin{document}\n"
        "\\input{table}\n" + latex_escape(NASTY) + "\n\\end{document}\n", encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:]
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert "Missing $ inserted" not in log and "Extra alignment tab" not in log
    assert (tmp_path / "doc.pdf").read_bytes()[:5] == b"%PDF-"
