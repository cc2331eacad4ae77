"""Report rows: one per full configuration (KLConfig + trainer + aggregation ...), pooled only over seeds."""
from __future__ import annotations

from kleval.klconfig import PRESETS, KLConfig
from kleval.report.configs import PRESET_COLOURS, group_rows
from kleval.report.study import Study
from kleval.report.table import compute_table
from report.fake_study import FakeCheckpoint, kl_checkpoint, write_study

TASKS = {"add": "id"}


def _rows(tmp_path, checkpoints):
    return group_rows(Study(write_study(tmp_path / "study", checkpoints, TASKS, num_problems=10)))


def test_sequence_level_verl_and_openrlhf_at_one_beta_are_three_rows(tmp_path):
    hard = KLConfig("k3", "loss", 0.1, clamp=10.0, clamp_mode="hard")
    checkpoints = [
        FakeCheckpoint(f"seq_s{seed}", 10, "k3-loss", kl=KLConfig("k3", "loss", 0.1, granularity="sequence"))
        for seed in (0, 1)
    ] + [
        FakeCheckpoint("verl_run", 10, "k3-loss", kl=hard, trainer="verl", loss_aggregation="token-mean"),
        FakeCheckpoint("openrlhf_run", 10, "k3-loss", kl=hard, trainer="openrlhf", loss_aggregation="token-mean"),
        kl_checkpoint("k3-loss", 0, 10, {"add": 0.5}),
    ]
    rows = _rows(tmp_path, checkpoints)
    assert [r.display for r in rows] == ["k3-loss", "k3-loss seq", "k3-loss clamp(hard)=10 (openrlhf)",
                                         "k3-loss clamp(hard)=10 (verl)"]
    seq = next(r for r in rows if r.display == "k3-loss seq")
    assert seq.runs == ("seq_s0", "seq_s1")  # only seeds are pooled
    assert len({r.colour for r in rows}) == 4


def test_two_betas_of_one_preset_are_labelled_and_report_does_not_fail(tmp_path):
    checkpoints = [FakeCheckpoint(f"b{beta}_s{seed}", 10, "k3-loss", beta=beta, accuracy={"add": 0.6})
                   for beta in (0.1, 0.3) for seed in (0, 1)]
    study = Study(write_study(tmp_path / "study", checkpoints, TASKS, num_problems=10))
    rows = group_rows(study)
    assert [r.display for r in rows] == ["k3-loss β=0.1", "k3-loss β=0.3"]
    table = compute_table(study, num_resamples=50)  # default reference "k3-loss" no longer exits 2
    assert table.reference.display == "k3-loss β=0.1"
    assert compute_table(study, reference="k3-loss β=0.3", num_resamples=50).reference.display == "k3-loss β=0.3"


def test_rows_differing_only_in_aggregation_are_told_apart(tmp_path):
    checkpoints = [kl_checkpoint("k3-loss", 0, 10, {"add": 0.6}),
                   FakeCheckpoint("tm", 10, "k3-loss", beta=0.1, loss_aggregation="token-mean")]
    assert [r.display for r in _rows(tmp_path, checkpoints)] == ["k3-loss", "k3-loss token-mean"]


def test_rows_differing_in_what_labels_leave_out_get_it_appended(tmp_path):
    checkpoints = [kl_checkpoint("k3-loss", 0, 10, {"add": 0.6}),
                   FakeCheckpoint("g", 10, "k3-loss", beta=0.1, algorithm="grpo")]
    assert [r.display for r in _rows(tmp_path, checkpoints)] == ["k3-loss, algorithm rloo", "k3-loss, algorithm grpo"]


def test_every_preset_has_its_own_colour():
    assert set(PRESET_COLOURS) == set(PRESETS) and len(set(PRESET_COLOURS.values())) == len(PRESETS)


def test_steps_sort_as_numbers(tmp_path):
    checkpoints = [kl_checkpoint("k1-both", 0, step, {"add": 0.5}) for step in (3, 10, 100)]
    (row,) = _rows(tmp_path, checkpoints)
    assert [step for step, _ in row.labels_by_step] == [3, 10, 100] and row.final_step == 100
    assert row.colour == PRESET_COLOURS["k1-both"]
