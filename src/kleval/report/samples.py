"""The data of the report's sample browser: one script file per (checkpoint, task), loaded on demand.

Browsers refuse `fetch()` of `file://` URLs, so each file is a script that hands its data to the
page (`kleval_samples(label, task, data)`, JSONP style) and the page adds a `<script src>` only
for the checkpoints and task the filters select: a study with tens of thousands of samples opens
as fast as a small one. The page itself gets only a small index (checkpoints with their
configuration and step, tasks, file names, per-file counts).

Every string travels as JSON with `<`, `>` and `&` escaped, and the page puts it into the
document as text (never as HTML), so completions, prompts and names are shown, never run.
Output depends only on the study directory, so reruns give byte-identical files.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

from kleval.eval import study as layout
from kleval.report.study import Study
from kleval.report.table import Table

DATA_DIR = "samples-browser"  # beside index.html
STATUSES = ("correct", "incorrect", "no_answer", "parse_error", "timeout", "gold_error", "truncated", "ungraded")


def to_script_json(value: Any) -> str:
    """JSON that is safe inside a <script> element or file: no `</script>`, no `<!--`, no raw
    line separators (ensure_ascii escapes U+2028/U+2029)."""
    text = json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def problem_anchor(task: str, problem_id: str, checkpoint: str | None = None) -> str:
    """The index.html fragment that opens one problem in the sample browser (all configurations,
    or one checkpoint): `#problem=TASK/ID[&checkpoint=LABEL]`, each part URL-encoded."""
    anchor = f"#problem={quote(task, safe='')}/{quote(problem_id, safe='')}"
    return anchor + (f"&checkpoint={quote(checkpoint, safe='')}" if checkpoint else "")


def split_answer(text: str, extracted: str | None) -> list[str]:
    """[before, answer, after] when the extracted answer occurs in the text (its last occurrence,
    where extractors look first), else [text]."""
    if extracted:
        for needle in (extracted, extracted.strip()):
            at = text.rfind(needle) if needle else -1
            if at != -1:
                return [text[:at], needle, text[at + len(needle):]]
    return [text]


def checkpoint_rows(study: Study, table: Table) -> list[dict[str, Any]]:
    """Each evaluated checkpoint with its configuration (the table row's name), step, and whether
    it is the step the table reports."""
    placed: dict[str, dict[str, Any]] = {}
    for row in table.rows:
        for step, labels in row.labels_by_step:
            for label in labels:
                placed[label] = {"config": row.display, "step": step, "final": label in row.final_labels}
    rows = []
    for label, ckpt in study.checkpoints.items():
        where = placed.get(label, {"config": label, "step": ckpt.step, "final": True})
        rows.append({"label": label, "run": ckpt.run, **where})
    return rows


def _problems(study: Study, label: str, task: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    samples = layout.read_jsonl(layout.samples_path(study.root, label, task), skip_torn=True)
    scores = {(r["problem_id"], r["sample_index"]): r for r in layout.read_jsonl(layout.scores_path(study.root, label, task), skip_torn=True)}
    by_problem: dict[str, dict[str, Any]] = {}
    if not samples:  # older or trimmed studies keep only the verdicts
        samples = [{"problem_id": r["problem_id"], "sample_index": r["sample_index"], "completion": None}
                   for r in scores.values()]
    counts = dict.fromkeys(STATUSES, 0)
    for sample in samples:
        pid = str(sample["problem_id"])
        problem = by_problem.setdefault(pid, {"id": pid, "prompt": sample.get("prompt"), "gold": sample.get("gold"),
                                              "samples": []})
        verdict = scores.get((sample["problem_id"], sample["sample_index"]), {})
        status = verdict.get("status") or "ungraded"
        truncated = sample.get("finish_reason") == "length"
        text = sample.get("completion")
        problem["samples"].append({
            "i": sample["sample_index"], "status": status, "truncated": truncated,
            "parts": None if text is None else split_answer(text, verdict.get("extracted")),
            "extracted": verdict.get("extracted"), "rule": verdict.get("rule") or "",
            "why": verdict.get("explanation") or "", "pred": verdict.get("pred_canonical"),
            "gold_canonical": verdict.get("gold_canonical"), "tokens": sample.get("num_tokens"),
            "finish": sample.get("finish_reason"),
        })
        counts[status] = counts.get(status, 0) + 1
        counts["truncated"] += truncated
    problems = sorted(by_problem.values(), key=lambda p: p["id"])
    for problem in problems:
        problem["samples"].sort(key=lambda s: s["i"])
    return problems, counts


def write_sample_data(study: Study, table: Table, out_dir: Path) -> dict[str, Any]:
    """Write DATA_DIR/<label>/<task>.js for every evaluated (checkpoint, task); return the index."""
    target = Path(out_dir) / DATA_DIR
    if target.exists():
        shutil.rmtree(target)  # no stale files of checkpoints that left the study
    files: dict[str, dict[str, Any]] = {}
    tasks = list(study.task_splits)
    for label in study.checkpoints:
        for task in tasks:
            if (label, task) not in study.evaluated:
                continue
            problems, counts = _problems(study, label, task)
            path = target / label / f"{task}.js"
            path.parent.mkdir(parents=True, exist_ok=True)
            data = {"problems": problems}
            path.write_text(f"kleval_samples({to_script_json(label)},{to_script_json(task)},{to_script_json(data)});\n",
                            encoding="utf-8")
            files.setdefault(label, {})[task] = {
                "src": f"{DATA_DIR}/{quote(label)}/{quote(task)}.js", "problems": len(problems),
                "samples": sum(len(p["samples"]) for p in problems), "counts": counts,
            }
    return {"checkpoints": checkpoint_rows(study, table), "tasks": tasks, "splits": study.task_splits,
            "statuses": list(STATUSES), "files": files}


def problem_link(study_dir: str | Path, task: str, problem_id: str, checkpoint: str | None = None) -> str:
    """A file:// link to one problem in the study's report page (STUDY/report/index.html, written
    by `kleval report STUDY`), for `kleval audit` and `kleval regress` to print."""
    page = (Path(study_dir) / "report" / "index.html").resolve()
    return page.as_uri() + problem_anchor(task, problem_id, checkpoint)
