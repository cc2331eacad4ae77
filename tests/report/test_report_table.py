"""Tests for the report table: pooling of seeds and steps, CIs, significance marks, determinism."""
from __future__ import annotations

import random
import shutil

import pytest

from kleval.errors import ConfigError
from kleval.report.render import DOWN, UP, to_latex, to_markdown
from kleval.report.study import Study
from kleval.report.table import ID_AVG, compute_table
from report.fake_study import FakeCheckpoint, kl_checkpoint, write_study

TASKS = {"add": "id", "mul": "id", "sub": "ood"}


def _checkpoints():
    """k3-loss reference; k3-reward much worse; k1-reward same as reference; two seeds each.

    The early step of every run is deliberately very different, so using it instead of the last
    step would change the table.
    """
    out = [FakeCheckpoint("base-model", 0, accuracy={t: 0.5 for t in TASKS})]
    for preset, acc in (("k3-loss", 0.7), ("k3-reward", 0.15), ("k1-reward", 0.7)):
        for seed in (0, 1):
            out.append(kl_checkpoint(preset, seed, 10, {t: 0.02 for t in TASKS}))
            out.append(kl_checkpoint(preset, seed, 20, {t: acc for t in TASKS}))
    return out


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory):
    return write_study(tmp_path_factory.mktemp("study"), _checkpoints(), TASKS, num_problems=40)


def test_rows_pool_seeds_at_last_step_with_cis(study_dir):
    table = compute_table(Study(study_dir), num_resamples=300)
    names = [row.display for row in table.rows]
    assert names == ["base-model", "k1-reward", "k3-reward", "k3-loss"]
    assert [c.name for c in table.columns] == ["add", "mul", ID_AVG, "sub"]
    k3 = next(r for r in table.rows if r.name == "k3-loss")
    assert k3.runs == ("k3-loss_s0", "k3-loss_s1") and k3.final_step == 20
    assert k3.final_labels == ("k3-loss_s0__step20", "k3-loss_s1__step20")
    for (row, column), cell in table.cells.items():
        assert cell.lo <= cell.mean <= cell.hi, (row, column)
        assert cell.num_runs == (1 if row.startswith("base") else 2)
    assert table.cells[("k3-loss", "add")].mean > 0.4  # the last step, not the early 0.02 one
    average = table.cells[("k3-loss", ID_AVG)]
    parts = [table.cells[("k3-loss", t)].mean for t in ("add", "mul")]
    assert average.mean == pytest.approx(sum(parts) / 2)


def test_checkpoint_level_marks_against_reference(study_dir):
    table = compute_table(Study(study_dir), num_resamples=300, test="problem")
    assert table.reference is not None and table.reference.name == "k3-loss"
    worse = table.cells[("k3-reward", "sub")].vs_reference
    assert worse.difference < 0 and worse.p_value < 0.01
    assert table.cells[("k3-loss", "sub")].vs_reference is None
    markdown = to_markdown(table)
    k3_reward_line = next(line for line in markdown.splitlines() if line.startswith("| k3-reward"))
    assert k3_reward_line.count(DOWN) == 4 and UP not in k3_reward_line
    assert "| k3-loss (ref) |" in markdown
    assert "paired sign-flip test over problems" in markdown and "Holm-adjusted over the 12 tests" in markdown
    # Best per column in bold; the column winner is one of the two strong configurations.
    assert markdown.count("**") >= 2 * len(table.columns)


def test_reference_choice(study_dir):
    study = Study(study_dir)
    table = compute_table(study, reference="k3-reward", num_resamples=200, test="problem")
    assert table.reference.name == "k3-reward"
    assert table.cells[("k3-loss", "add")].vs_reference.difference > 0
    with pytest.raises(ConfigError, match="not found"):
        compute_table(study, reference="k2-loss", num_resamples=200)


def test_missing_default_reference_means_no_marks(tmp_path):
    ckpts = [kl_checkpoint("k1-reward", 0, 5, {"add": 0.6}), kl_checkpoint("none", 0, 5, {"add": 0.2})]
    table = compute_table(Study(write_study(tmp_path, ckpts, {"add": "id"})), num_resamples=200)
    assert table.reference is None and any("no significance marks" in n for n in table.notes)
    assert UP not in to_markdown(table) and DOWN not in to_markdown(table)


def test_k_larger_than_n_is_a_clear_error(study_dir):
    with pytest.raises(ConfigError, match="n=4"):
        compute_table(Study(study_dir), k=8)


def test_latex_is_booktabs(study_dir):
    tex = to_latex(compute_table(Study(study_dir), num_resamples=200, test="problem"))
    for needed in (r"\toprule", r"\midrule", r"\bottomrule", r"\cmidrule", r"\textbf{", r"$^{\downarrow}$"):
        assert needed in tex
    assert "k3-loss (ref)" in tex and "base-model" in tex


def test_tables_are_a_pure_function_of_the_study(study_dir, tmp_path):
    first = to_markdown(compute_table(Study(study_dir))), to_latex(compute_table(Study(study_dir), test="problem"))
    # The same scores appended in another order must give byte-identical tables.
    copy = tmp_path / "copy"
    shutil.copytree(study_dir, copy)
    rng = random.Random(0)
    for path in (copy / "scores").rglob("*.jsonl"):
        lines = path.read_text().splitlines(keepends=True)
        rng.shuffle(lines)
        path.write_text("".join(lines))
    second = to_markdown(compute_table(Study(copy))), to_latex(compute_table(Study(copy), test="problem"))
    assert first == second


def test_partially_graded_problems_are_left_out_and_noted(tmp_path):
    ckpts = [kl_checkpoint("k3-loss", 0, 5, {"add": 0.6})]
    study_dir = write_study(tmp_path, ckpts, {"add": "id"}, num_problems=10)
    scores = study_dir / "scores" / "k3-loss_s0__step5" / "add.jsonl"
    scores.write_text("".join(scores.read_text().splitlines(keepends=True)[:-1]))
    table = compute_table(Study(study_dir), num_resamples=100)
    assert table.cells[("k3-loss", "add")].num_problems == 9
    assert any("1 problems not fully graded" in note for note in table.notes)
