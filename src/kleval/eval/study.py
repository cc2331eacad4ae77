"""The study directory on disk: its header, crash-safe JSONL logs, and the results table.

Layout (see docs/study-layout.md): study.json, checkpoints.json, samples/<label>/<task>.jsonl,
scores/<label>/<task>.jsonl, results.csv, table.md. Appends are whole batches in one write
followed by fsync, so a run killed at any moment leaves at most one torn last line, which
`read_jsonl(..., repair=True)` cuts off on the next start.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from kleval.errors import ConfigError, DataError

HEADER_FILE = "study.json"
CHECKPOINTS_FILE = "checkpoints.json"
RESULTS_FILE = "results.csv"
TABLE_FILE = "table.md"
LOCK_FILE = ".lock"
_TRACKED_PACKAGES = ("kleval", "torch", "transformers", "tokenizers", "vllm", "sympy",
                     "latex2sympy2_extended", "datasets", "numpy", "pandas")


def safe_component(name: str, what: str) -> str:
    """`name` as one path component inside the study; DataError for '..', separators and the like,
    so nothing named in a checkpoint, task or study file can write outside the study directory."""
    if not isinstance(name, str) or not name or "/" in name or "\0" in name or name.startswith("."):
        raise DataError(f"{what} {name!r} cannot name a file in the study (no '/', '..', leading '.' or NUL)")
    return name


def samples_path(study: Path, label: str, task: str) -> Path:
    return study / "samples" / safe_component(label, "checkpoint label") / f"{safe_component(task, 'task name')}.jsonl"


def scores_path(study: Path, label: str, task: str) -> Path:
    return study / "scores" / safe_component(label, "checkpoint label") / f"{safe_component(task, 'task name')}.jsonl"


# What every row of a study log must hold, by the folder the log lives in (docs/study-layout.md).
LOG_FIELDS: dict[str, dict[str, type]] = {
    "samples": {"problem_id": str, "sample_index": int, "completion": str, "gold": str},
    "scores": {"problem_id": str, "sample_index": int, "correct": bool, "status": str},
}


def _row_problem(row: dict[str, Any], fields: Mapping[str, type]) -> str | None:
    for key, kind in fields.items():
        value = row.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"field {key!r} is missing or not {kind.__name__}"
    return None


def read_jsonl(path: Path, *, repair: bool = False, skip_torn: bool = False) -> list[dict[str, Any]]:
    """Read a JSONL log. A torn tail (a kill mid-write leaves bytes after the last newline) is
    cut off the file when `repair`, ignored when `skip_torn` (a log another process is still
    writing); a bad complete line is corruption: DataError naming file and line. Rows of
    samples/ and scores/ logs are checked against LOG_FIELDS."""
    if not path.exists():
        return []
    raw = path.read_bytes()
    complete, _, tail = raw.rpartition(b"\n")
    if tail.strip() and not skip_torn:
        if not repair:
            raise DataError(f"{path}: last line is incomplete (an interrupted write?)")
        with open(path, "r+b") as fh:
            fh.truncate(len(complete) + 1 if complete else 0)
    rows: list[dict[str, Any]] = []
    in_study = path.suffix == ".jsonl" and (path.parent.parent.parent / HEADER_FILE).is_file()
    fields = LOG_FIELDS.get(path.parent.parent.name) if in_study else None
    for number, line in enumerate(complete.split(b"\n") if complete else [], start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:  # also invalid UTF-8 and NUL bytes
            raise DataError(f"{path}:{number}: corrupt log line ({exc}); delete the file to regenerate it") from None
        if not isinstance(row, dict):
            raise DataError(f"{path}:{number}: expected a JSON object, got {type(row).__name__}")
        problem = fields and _row_problem(row, fields)
        if problem:
            raise DataError(f"{path}:{number}: {problem}; not a kleval {path.parent.parent.name} row")
        rows.append(row)
    return rows


def jsonl_text(rows: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)


def append_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Append rows in one write and fsync, so a crash loses at most this batch."""
    payload = jsonl_text(rows)
    if not payload:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(payload)
        fh.flush()
        os.fsync(fh.fileno())


def write_atomic(path: Path, text: str) -> None:
    """Write a whole file via a temporary file and rename, so readers never see half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path} not found: is this a kleval study directory?") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid UTF-8 (byte {exc.start + 1})") from None


@contextlib.contextmanager
def directory_lock(directory: Path, reason: str) -> Iterator[None]:
    """Hold an exclusive lock on `directory` (an OS flock on its .lock file, released by the kernel
    when the process dies, so a kill -9 never leaves a stale lock); refuse with `reason` when held.
    The holder's pid is written into the file for the message."""
    import fcntl

    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / LOCK_FILE, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip()
            raise ConfigError(f"{directory} is in use: {reason}" + (f" (pid {holder})" if holder.isdigit() else "")
                              + "; wait for it to finish or choose another directory") from None
        try:
            fh.seek(0)
            fh.truncate()
            fh.write(str(os.getpid()))
            fh.flush()
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@contextlib.contextmanager
def study_lock(study: Path) -> Iterator[None]:
    """Hold an exclusive lock on the study so two runs (eval, rescore) cannot interleave their logs."""
    with directory_lock(study, "another kleval run (eval or rescore) is writing this study"):
        yield


def study_labels(known: Mapping[str, Mapping[str, Any]], checkpoints: Sequence[Any]) -> list[Any]:
    """Relabel checkpoints so that one label in a study always means one model directory.

    `known`: checkpoints.json rows by label. A checkpoint already in the study keeps its label
    there (a resume reuses its samples); a new one whose label another directory holds (two runs
    that both end in .../model) gets its parent folder's name, then a counter, in front.
    """
    from dataclasses import replace

    by_path = {str(Path(row["path"]).resolve()): label for label, row in known.items() if row.get("path")}
    taken = set(known)
    result = []
    for ckpt in checkpoints:
        path = str(Path(ckpt.path).resolve())
        label = by_path.get(path)
        if label is None:
            label = ckpt.label
            if label in taken:
                parent = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(path).parent.name).strip("._")
                base = label = f"{parent}__{ckpt.label}" if parent else ckpt.label
                counter = 2
                while label in taken:
                    label, counter = f"{base}-{counter}", counter + 1
        taken.add(label)
        by_path[path] = label
        result.append(ckpt if label == ckpt.label else replace(ckpt, label=label))
    return result


_SECRET_KEY = re.compile(r"key|token|secret|password|authorization|credential", re.IGNORECASE)
REDACTED = "<redacted>"


def redact(options: Mapping[str, Any]) -> dict[str, Any]:
    """Backend options fit for study.json and logs: values of secret-looking keys (api_key, ...) hidden."""
    return {k: (REDACTED if _SECRET_KEY.search(str(k)) and v else v) for k, v in options.items()}


def package_versions() -> dict[str, str]:
    versions = {}
    for name in _TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_revision(path: Path | None = None) -> str | None:
    """The git commit of the kleval source tree (with "-dirty" when it has local changes)."""
    cwd = path or Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return rev + ("-dirty" if dirty else "")


# Backend options that change what a model generates (the rest, e.g. base_url or concurrency, do not).
# The chunk size is not among them: samples do not depend on how problems are chunked.
SAMPLE_AFFECTING_OPTIONS = ("dtype", "max_model_len", "model", "strip_think")


# The header fields that decide whether two runs' samples may be mixed in one study.
def comparability_conflicts(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Reasons why a new run cannot be added to a study written with header `old`."""
    problems = []
    if old.get("sampling") != new.get("sampling"):
        problems.append(f"sampling differs: study has {old.get('sampling')}, this run {new.get('sampling')}")
    if old.get("verifier_version") != new.get("verifier_version"):
        problems.append(f"verifier version differs: {old.get('verifier_version')} vs {new.get('verifier_version')} "
                        "(use `kleval rescore` to re-grade the study)")
    if old.get("backend") != new.get("backend"):
        problems.append(f"backend differs: {old.get('backend')} vs {new.get('backend')}")
    for key in SAMPLE_AFFECTING_OPTIONS:
        before, after = (old.get("backend_options") or {}).get(key), (new.get("backend_options") or {}).get(key)
        if before != after:
            problems.append(f"backend option {key} differs: study has {before}, this run {after}")
    for name, info in new.get("tasks", {}).items():
        before = old.get("tasks", {}).get(name)
        if before is None:
            continue
        for key in ("spec_hash", "prompt_hash", "data_hash", "limit"):
            if before.get(key) != info.get(key):
                problems.append(f"task {name}: {key} differs ({before.get(key)} vs {info.get(key)})")
    return problems


def merge_header(old: Mapping[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """A header covering both runs; refuses (ConfigError) when they are not comparable."""
    if old is None:
        return new
    conflicts = comparability_conflicts(old, new)
    if conflicts:
        raise ConfigError("the output directory holds a study with different settings: " + "; ".join(conflicts)
                          + ". Use another --out, or the study's own settings")
    merged = dict(old)
    merged["tasks"] = {**old.get("tasks", {}), **new["tasks"]}
    merged["ks"] = sorted(set(old.get("ks", [])) | set(new.get("ks", [])))
    return merged
