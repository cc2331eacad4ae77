"""kleval.eval.distributed: Ray jobs per (checkpoint, task) give the same study as a plain run."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from kleval.eval import distributed
from kleval.errors import ConfigError
from kleval.eval.run import EvalSpec
from kleval.types import SamplingParams

TASKS = ("math500", "gsm8k")


def _spec(data_dir: Path) -> EvalSpec:
    return EvalSpec(tasks=TASKS, sampling=SamplingParams(n=2, max_tokens=8, seed=3), ks=(1, 2), limit=3,
                    chunk_size=2, data_dir=str(data_dir), backend_options={"device": "cpu"})


def _samples(study: Path) -> dict[str, list[str]]:
    return {str(f.relative_to(study)): sorted(f.read_text().splitlines())
            for f in sorted((study / "samples").rglob("*.jsonl"))}


def test_missing_ray_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` raise ImportError
    with pytest.raises(ConfigError, match=r"kleval\[ray\]"):
        distributed.import_ray()


def test_job_finished_needs_every_sample_graded(tmp_path, data_dir):
    from kleval.eval import study as layout
    from kleval.tasks import load_task

    spec = _spec(data_dir)
    task = load_task("gsm8k", data_dir=data_dir)
    ids = [p.id for p in task.problems(spec.limit)]
    rows = [{"problem_id": pid, "sample_index": j} for pid in ids for j in range(2)]
    layout.append_jsonl(layout.samples_path(tmp_path, "m", "gsm8k"), rows)
    layout.append_jsonl(layout.scores_path(tmp_path, "m", "gsm8k"), rows[:-1])
    assert not distributed.job_finished(tmp_path, "m", task, spec)  # one verdict missing
    layout.append_jsonl(layout.scores_path(tmp_path, "m", "gsm8k"), rows[-1:])
    assert distributed.job_finished(tmp_path, "m", task, spec)
    with open(layout.samples_path(tmp_path, "m", "gsm8k"), "a") as fh:
        fh.write('{"problem_id": "torn')  # a job killed mid-write: repaired, still finished
    assert distributed.job_finished(tmp_path, "m", task, spec)


@pytest.mark.slow
def test_ray_study_equals_plain_study_and_reruns_skip(tiny_checkpoint, data_dir, tmp_path, capsys, monkeypatch):
    ray = pytest.importorskip("ray")
    # Ray renices its worker processes to 15 (RayConfig worker_niceness). Beside a busy process at
    # nice 0 (the other pytest-xdist worker, other jobs on the machine) they then get a few percent of
    # a core each: this test took 232 s under `-n 2` against ~50 s alone. At 0 they share the CPU
    # evenly; no result depends on it. (The local cluster ray.init starts reads RAY_* variables.)
    monkeypatch.setenv("RAY_worker_niceness", "0")
    from kleval.eval.checkpoints import discover
    from kleval.eval.run import evaluate

    spec = _spec(data_dir)
    checkpoints = discover([str(tiny_checkpoint)])
    plain = evaluate(checkpoints, spec, tmp_path / "plain", progress=False).parent

    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
    try:
        on_ray = distributed.evaluate_distributed(checkpoints, spec, tmp_path / "ray").parent
        assert "2 jobs to run, 0 already finished" in capsys.readouterr().out
        assert _samples(on_ray) == _samples(plain) and len(_samples(on_ray)) == len(TASKS)
        pd.testing.assert_frame_equal(pd.read_csv(on_ray / "results.csv"), pd.read_csv(plain / "results.csv"))
        for name in ("scores/{}/math500.jsonl", "scores/{}/gsm8k.jsonl"):
            path = name.format(checkpoints[0].label)
            assert sorted((on_ray / path).read_text().splitlines()) == sorted((plain / path).read_text().splitlines())

        # One job's logs lost: only that job runs again, and the study ends up the same.
        (on_ray / "samples" / checkpoints[0].label / "gsm8k.jsonl").unlink()
        distributed.evaluate_distributed(checkpoints, spec, tmp_path / "ray")
        assert "1 jobs to run, 1 already finished" in capsys.readouterr().out
        assert _samples(on_ray) == _samples(plain)
        distributed.evaluate_distributed(checkpoints, spec, tmp_path / "ray")
        assert "0 jobs to run, 2 already finished" in capsys.readouterr().out
        pd.testing.assert_frame_equal(pd.read_csv(on_ray / "results.csv"), pd.read_csv(plain / "results.csv"))
    finally:
        ray.shutdown()
