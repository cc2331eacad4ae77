"""Reports of a study directory: the paper-shaped table (Markdown, LaTeX), figures, index.html.

`build_report(study_dir, out_dir, k=1, reference=None)` is a pure function of the study directory:
the same logs always give byte-identical tables. Submodules: `study` (read the layout), `configs`
(group checkpoints into KL-configuration rows), `table` (cells, CIs, paired tests), `render`
(Markdown/LaTeX/HTML table), `plots` (figures), `html` (index.html).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ReportFiles:
    out_dir: Path
    table_md: Path
    table_tex: Path
    index_html: Path
    figures: tuple[Path, ...]


def build_report(
    study_dir: str | Path,
    out_dir: str | Path | None = None,
    *,
    k: int = 1,
    reference: str | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    num_resamples: int = 1000,
    figures: bool = True,
    test: str = "seed",
) -> ReportFiles:
    """Write table.md, table.tex, figures (PNG + PDF) and index.html for a study.

    out_dir defaults to STUDY_DIR/report. reference=None compares against "k3-loss" when the
    study has it. test: "seed" (configurations, seeds as the unit) or "problem" (checkpoints,
    problems as the unit); see `report.table`.
    """
    from kleval.report.html import write_index
    from kleval.report.plots import make_figures
    from kleval.report.render import to_latex, to_markdown
    from kleval.report.study import Study
    from kleval.report.table import compute_table

    study = Study(study_dir)
    out = Path(out_dir) if out_dir is not None else study.root / "report"
    out.mkdir(parents=True, exist_ok=True)
    table = compute_table(study, k=k, reference=reference, alpha=alpha, confidence=confidence,
                          num_resamples=num_resamples, test=test)
    table_md, table_tex = out / "table.md", out / "table.tex"
    from kleval.eval.study import write_atomic  # a kill mid-report leaves whole files only

    write_atomic(table_md, to_markdown(table))
    write_atomic(table_tex, to_latex(table))
    made = make_figures(study, table, out) if figures else []
    from kleval.report.samples import write_sample_data

    browser = write_sample_data(study, table, out)
    index = write_index(out, study.root.resolve().name, study.header, table, made, browser)
    paths = tuple(out / f"{f.stem}.{ext}" for f in made for ext in ("png", "pdf"))
    return ReportFiles(out, table_md, table_tex, index, paths)
