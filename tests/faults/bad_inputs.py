"""A catalog of bad input files for every kleval command that reads one, shared by
tests/faults/test_bad_inputs.py and benchmarks/faults.py.

Each defect is put on line 2 of an otherwise valid JSONL file (line 1 stays good, so the
error must point at the right line). `cases(root)` builds one directory per (command, defect)
and returns `Case`s: the argv to run and the file the one-line error must name.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

GOOD_ROW = {"gold": "3", "completion": "so \\boxed{3}"}
# defect name -> (line 2 bytes, whether the error must name line 2)
DEFECTS: dict[str, tuple[bytes, bool]] = {
    "invalid_json": (b'{"gold": "3", "completion": \n', True),
    "not_an_object": (b"[1, 2, 3]\n", True),
    "nul_byte": (b'{"gold": "3", "completion": "a\x00b"}\n', True),
    "invalid_utf8": (b'{"gold": "3", "completion": "\xff\xfe"}\n', True),
    "missing_key": (b'{"gold": "3"}\n', True),
    "non_string_field": (b'{"gold": "3", "completion": 5}\n', True),
    "empty_file": (b"", False),
}


@dataclass(frozen=True)
class Case:
    command: str
    defect: str
    argv: tuple[str, ...]
    names: str  # the file the error must name
    line: int | None  # and this line, when the defect has one
    env: tuple[tuple[str, str], ...] = ()
    may_succeed: bool = False  # an empty study log is a valid state (nothing logged yet): exit 0 is fine


def _jsonl(path: Path, first: dict, defect: str, rename: Callable[[dict], dict] = lambda r: r) -> Path:
    """Line 1 = `first`; line 2 = the defect with GOOD_ROW's keys renamed by `rename`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line, _ = DEFECTS[defect]
    if defect == "empty_file":
        path.write_bytes(b"")
        return path
    if defect in ("missing_key", "non_string_field"):
        row = json.loads(line)
        line = (json.dumps(rename(row)) + "\n").encode()
    path.write_bytes((json.dumps(first) + "\n").encode() + line)
    return path


def _verify_case(root: Path, defect: str) -> Case:
    source = _jsonl(root / "in.jsonl", GOOD_ROW, defect)
    return Case("verify", defect, ("verify", "--input", str(source), "--output", str(root / "out.jsonl")),
                str(source), 2 if DEFECTS[defect][1] else None)


def fake_model(root: Path) -> Path:
    model = root / "model"
    model.mkdir(parents=True, exist_ok=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"")
    return model


def _eval_data_case(root: Path, defect: str) -> Case:
    """A custom task whose data file is bad; the error comes before any generation."""
    data = root / "data"
    rename = lambda r: {"question": r["gold"]} if "completion" not in r else {"question": 5, "answer": "3"}
    source = _jsonl(data / "bad" / "test.jsonl", {"question": "1+2?", "answer": "3"}, defect, rename)
    spec = root / "badtask.toml"
    spec.write_text('split = "id"\nkind = "math"\nfile = "bad/test.jsonl"\nprompt = "{question}"\n'
                    '[fields]\nquestion = "question"\nanswer = "answer"\n')
    argv = ("eval", "--backend", "openai", "--checkpoints", str(fake_model(root)), "--tokenizer", "tok",
            "--tasks", str(spec), "--data-dir", str(data), "--out", str(root / "study"), "--no-progress")
    return Case("eval", defect, argv, str(source), 2 if DEFECTS[defect][1] else None,
                (("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),))


def _study(root: Path) -> Path:
    study = root / "study"
    (study / "samples" / "m").mkdir(parents=True)
    sampling = {"n": 1, "temperature": 1.0, "top_p": 1.0, "max_tokens": 16, "seed": 0, "stop": []}
    (study / "study.json").write_text(json.dumps({"tasks": {"t": {"policy": "default", "split": "id"}},
                                                  "sampling": sampling, "ks": [1], "verifier_version": "0"}))
    (study / "checkpoints.json").write_text(json.dumps([{"label": "m", "path": "m", "format": "hf"}]))
    return study


def _sample(row: dict) -> dict:
    return {"problem_id": "p1", "sample_index": 0, "kind": "math", **row}


def _rescore_case(root: Path, defect: str) -> Case:
    study = _study(root)
    source = _jsonl(study / "samples" / "m" / "t.jsonl", _sample(GOOD_ROW), defect, _sample)
    return Case("rescore", defect, ("rescore", str(study), "--workers", "1"), str(source),
                2 if DEFECTS[defect][1] else None, may_succeed=defect == "empty_file")


def _report_case(root: Path, defect: str) -> Case:
    study = _study(root)
    score = {"problem_id": "p1", "sample_index": 0, "correct": True, "status": "correct"}
    rename = lambda r: {"problem_id": "p2", "sample_index": 0} if "completion" not in r else {**score, "correct": "yes"}
    source = _jsonl(study / "scores" / "m" / "t.jsonl", score, defect, rename)
    (study / "results.csv").write_text("checkpoint,task,split\nm,t,id\n")
    return Case("report", defect, ("report", str(study), "--no-figures", "--resamples", "10"), str(source),
                2 if DEFECTS[defect][1] else None, may_succeed=defect == "empty_file")


BUILDERS = {"verify": _verify_case, "eval": _eval_data_case, "rescore": _rescore_case, "report": _report_case}


def cases(root: Path) -> list[Case]:
    """Every (command, defect) case, each in its own directory under `root`."""
    made = []
    for command, build in BUILDERS.items():
        for defect in DEFECTS:
            made.append(build(root / command / defect, defect))
    return made
