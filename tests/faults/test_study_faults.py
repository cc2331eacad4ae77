"""Studies that used to go silently wrong: a rescore during an eval, a resume with other model
settings, two checkpoints with one directory name, a task given as a path, an API key in the
study settings, many unnamed rows, TeX/HTML in names, a malformed regress baseline."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from faultkit import one_line_error, run_kleval
from stub_openai import StubOpenAI

from kleval.errors import ConfigError
from kleval.eval.study import comparability_conflicts, merge_header, study_lock

pytestmark = pytest.mark.faults
SECRET = "sk-kleval-test-SECRET-0123456789"
HOSTILE = "t$\\frac{1}{$<script>alert(1)<script>"


def fake_model(root: Path, parent: str) -> Path:
    model = root / parent / "served"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"")
    return model


def eval_openai(server: StubOpenAI, tmp_path: Path, out: Path, *checkpoints, tasks="gsm8k", options="", extra=()):
    config = tmp_path / "study.toml"
    config.write_text(f'backend_options = {{base_url = "{server.base_url}"{options}}}\n')
    return run_kleval("eval", "--config", config, "--backend", "openai", "--checkpoints", *checkpoints,
                      "--tokenizer", "tok", "--tasks", tasks, "--limit", "3", "--n", "2", "--out", out,
                      "--data-dir", Path(__file__).resolve().parents[3] / "shared" / "data", "--no-progress",
                      *extra, timeout=180)


@pytest.fixture()
def server():
    with StubOpenAI(length=200) as stub:
        yield stub


@pytest.mark.slow
def test_task_given_as_a_path_labels_and_secrets(server, tmp_path, data_dir):
    spec = tmp_path / "my_task.toml"
    spec.write_text((Path(__file__).resolve().parents[2] / "tasks" / "gsm8k.toml").read_text())
    out = tmp_path / "study"
    first, second = fake_model(tmp_path, "runA"), fake_model(tmp_path, "runB")
    done = eval_openai(server, tmp_path, out, first, tasks=str(spec), options=f', api_key = "{SECRET}"')
    assert done.returncode == 0, done.stderr
    done = eval_openai(server, tmp_path, out, second, tasks=str(spec), options=f', api_key = "{SECRET}"')
    assert done.returncode == 0, done.stderr
    assert server.seen_auth and all(a == f"Bearer {SECRET}" for a in server.seen_auth)  # the key was used...
    for path in out.rglob("*"):  # ...and written nowhere in the study
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in done.stdout + done.stderr
    rows = (out / "results.csv").read_text().splitlines()
    assert len(rows) == 3 and all(",my_task," in r for r in rows[1:])  # a path task is a real row
    labels = sorted(c["label"] for c in json.loads((out / "checkpoints.json").read_text()))
    assert labels == ["runB__served", "served"]  # the second 'served' did not reuse the first's samples
    assert len((out / "samples" / "runB__served" / "my_task.jsonl").read_text().splitlines()) == 6


def test_resume_with_other_model_settings_is_refused(server, tmp_path, data_dir):
    out, model = tmp_path / "study", fake_model(tmp_path, "run")
    assert eval_openai(server, tmp_path, out, model, options=', model = "a"').returncode == 0
    line = one_line_error(eval_openai(server, tmp_path, out, model, options=', model = "b"'))
    assert "backend option model differs: study has a, this run b" in line
    header = json.loads((out / "study.json").read_text())
    for key in ("dtype", "max_model_len"):
        changed = {**header, "backend_options": {**header["backend_options"], key: "other"}}
        assert any(key in reason for reason in comparability_conflicts(header, changed))
        with pytest.raises(ConfigError, match=f"backend option {key} differs"):
            merge_header(header, changed)
    same_but_chunked = {**header, "chunk_size": 7}  # samples do not depend on chunking
    assert comparability_conflicts(header, same_but_chunked) == []


def test_rescore_during_an_eval_is_refused(tmp_path):
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.json").write_text("{}")
    with study_lock(study):
        line = one_line_error(run_kleval("rescore", study, timeout=120))
    assert "is in use" in line and "eval or rescore" in line
    line = one_line_error(run_kleval("rescore", tmp_path / "nowhere", timeout=120))
    assert "a kleval study directory?" in line and not (tmp_path / "nowhere").exists()


def _fake_study_module():
    path = Path(__file__).resolve().parents[1] / "report" / "fake_study.py"
    spec = importlib.util.spec_from_file_location("fake_study_for_faults", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_report_with_many_unnamed_rows_and_hostile_names(tmp_path):
    from kleval.report import build_report

    fake = _fake_study_module()
    many = [fake.FakeCheckpoint(f"run{i}", 1, accuracy={"math500": 0.5}) for i in range(40)]
    fake.write_study(tmp_path / "many", many, {"math500": "id"}, num_problems=4)
    files = build_report(tmp_path / "many", num_resamples=20, figures=False)
    assert (files.table_md.read_text().count("| run")) == 40

    hostile = [fake.kl_checkpoint("k3-loss", 0, 1, {HOSTILE: 0.5}), fake.FakeCheckpoint(HOSTILE, 2, accuracy={HOSTILE: 0.3})]
    fake.write_study(tmp_path / "names", hostile, {HOSTILE: "id"}, num_problems=4)
    files = build_report(tmp_path / "names", num_resamples=20)  # figures too: no mathtext parse of names
    page = files.index_html.read_text()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page  # the page's own scripts aside
    markdown = files.table_md.read_text()
    assert "<script>" not in markdown and "\\$\\\\frac" in markdown
    latex = files.table_tex.read_text()
    assert "\\$\\textbackslash{}frac\\{1\\}\\{\\$" in latex and "$\\frac" not in latex
    assert {p.suffix for p in files.figures} == {".png", ".pdf"}
    assert not list(files.out_dir.glob("*.tmp")) and not list(files.out_dir.glob(".*.tmp"))


@pytest.mark.parametrize("baseline", [
    '{"format": "kleval-baseline/1"}',
    '{"format": "kleval-baseline/1", "comparability": {"sampling": {}, "tasks": {}}, "checkpoints": {"a": {"t": {"n": 2}}}}',
    '{"format": "kleval-baseline/1", "comparability": {"sampling": {}, "tasks": {}}, "checkpoints": {"a": {"t": {"n": 2, "correct": {"p": "x"}}}}}',
    '{"format": "kleval-baseline/1", "comparability": [], "checkpoints": {}}',
    "[1, 2",
    b"\xff\xfe not utf-8",
    "",
])
def test_a_malformed_regress_baseline_exits_2(tmp_path, baseline):
    fake = _fake_study_module()
    study = fake.write_study(tmp_path / "study", [fake.FakeCheckpoint("r", 1)], {"math500": "id"}, num_problems=3)
    path = tmp_path / "baseline.json"
    path.write_bytes(baseline if isinstance(baseline, bytes) else baseline.encode())
    line = one_line_error(run_kleval("regress", "--baseline", path, "--current", study, timeout=120))
    assert str(path) in line
