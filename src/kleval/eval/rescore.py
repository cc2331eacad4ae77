"""Re-verify a study's stored samples with the current verifier, and audit it against Math-Verify.

`rescore_study` rewrites scores/<label>/<task>.jsonl from samples/ (no generation) with each
task's verification policy as study.json recorded it, and records the new verifier version in
study.json; the caller recomputes results.csv. `audit_study` lists
samples where kleval and Math-Verify disagree, with both explanations.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kleval.errors import DataError

SCORE_KEYS = ("problem_id", "sample_index")


def _task_policy(header: dict[str, Any], task_name: str, study: Path) -> str:
    """The verification policy the study recorded for a task (study.json), never a guess."""
    info = (header.get("tasks") or {}).get(task_name) or {}
    policy = info.get("policy")
    if not isinstance(policy, str) or not policy:
        raise DataError(f"{study / 'study.json'} records no verification policy for task {task_name!r}; "
                        "it was not written by `kleval eval`, or the task was removed from it")
    return policy


def _sample_files(study: Path) -> list[tuple[str, str, Path]]:
    samples = study / "samples"
    if not samples.is_dir():
        raise DataError(f"{samples} not found: is {study} a kleval study directory?")
    return [(path.parent.name, path.stem, path) for path in sorted(samples.glob("*/*.jsonl"))]


def _items(rows: list[dict[str, Any]], policy: str, path: Path) -> list:
    from kleval.verify.pool import VerifyItem

    items = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row.get("gold"), str) or not isinstance(row.get("completion"), str):
            raise DataError(f"{path}:{number}: sample row needs string gold and completion")
        items.append(VerifyItem(row["gold"], row["completion"], row.get("kind") or "math", policy))
    return items


def rescore_study(study_dir: str | Path, *, workers: int = 2) -> int:
    """Rewrite every scores file from its samples with the current verifier; returns rows rescored."""
    from kleval.eval.study import jsonl_text, read_json, read_jsonl, scores_path, write_atomic, write_json
    from kleval.verify.core import VERIFIER_VERSION
    from kleval.verify.pool import VerifierPool

    study = Path(study_dir)
    header_path = study / "study.json"
    header = read_json(header_path)
    files = _sample_files(study)  # a directory that is not a study fails here, before any process starts
    total = 0
    with VerifierPool(workers=workers) as pool:
        for label, task_name, path in files:
            rows = read_jsonl(path)
            if not rows:
                continue
            policy = _task_policy(header, task_name, study)
            verdicts = pool.map(_items(rows, policy, path))
            scores = [{**{k: row.get(k) for k in SCORE_KEYS}, **v.to_dict()} for row, v in zip(rows, verdicts)]
            write_atomic(scores_path(study, label, task_name), jsonl_text(scores))
            total += len(scores)
    header["verifier_version"] = VERIFIER_VERSION
    write_json(header_path, header)
    return total


def math_verify_explained(gold: str, completion: str, kind: str) -> tuple[bool, str]:
    """Math-Verify 0.9.0's verdict and what it parsed, for audits."""
    try:
        from math_verify import ExprExtractionConfig, LatexExtractionConfig, StringExtractionConfig, parse, verify
    except ImportError as exc:
        raise DataError("math-verify is not installed; pip install 'math-verify[antlr4_13_2]==0.9.0'") from exc
    if kind == "choice":
        config = [StringExtractionConfig()]
        gold_parsed, answer = parse(gold, extraction_config=config), parse(completion, extraction_config=config)
    else:
        gold_parsed = parse("$" + gold + "$", extraction_config=[LatexExtractionConfig(), ExprExtractionConfig()])
        answer = parse(completion)
    ok = bool(verify(gold_parsed, answer))
    return ok, f"math-verify parsed gold {[str(x) for x in gold_parsed][:2]} answer {[str(x) for x in answer][:2]}"


def audit_study(study_dir: str | Path) -> list[dict[str, Any]]:
    """Samples where kleval's stored verdict and Math-Verify's differ, with both explanations."""
    from kleval.eval.study import read_jsonl, scores_path

    study = Path(study_dir)
    disagreements = []
    for label, task_name, path in _sample_files(study):
        samples = read_jsonl(path)
        scores = {(s.get("problem_id"), s.get("sample_index")): s for s in read_jsonl(scores_path(study, label, task_name))}
        for row in samples:
            score = scores.get((row.get("problem_id"), row.get("sample_index")))
            if score is None:
                continue
            mv_ok, mv_explanation = math_verify_explained(row["gold"], row["completion"], row.get("kind") or "math")
            if mv_ok != bool(score["correct"]):
                disagreements.append({
                    "checkpoint": label, "task": task_name, "problem_id": row.get("problem_id"),
                    "sample_index": row.get("sample_index"), "gold": row["gold"], "kleval": score["status"],
                    "kleval_explanation": f"{score.get('rule')}: {score.get('explanation')} (extracted {score.get('extracted')!r})",
                    "math_verify": "correct" if mv_ok else "incorrect", "math_verify_explanation": mv_explanation,
                })
    return disagreements
