"""Benchmark rows: where they come from and how one row becomes a Problem.

This module knows nothing about prompts or scoring. It resolves the data directory, reads rows
with their line numbers (so a bad row is reported as `file:line`), loads hub datasets lazily,
follows dotted field paths (`question.stem`, `final_answer.0`), turns raw gold values (AMC's
float 27.0, AIME's "025", GSM8K's "2,125", OlympiadBench's "$\\frac{1}{2}$") into clean answer
strings, and applies a task spec's field map, gold rule and filters to each row.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from kleval.errors import DataError
from kleval.types import AnswerKind, Problem

DATA_DIR_ENV = "KLEVAL_DATA_DIR"
_MISSING = object()
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class DataDir:
    """A resolved data directory and how it was chosen ("argument", "environment", "default")."""

    path: Path
    origin: str

    @property
    def strict(self) -> bool:
        """A directory the user named must hold the file; the default may fall back to the hub."""
        return self.origin != "default"


def project_root() -> Path:
    """The directory holding tasks/ and assets/: the repository root in a checkout (the package's
    bundled symlinks point there), the bundled copy inside an installed wheel."""
    from kleval.resources import bundled_root

    return (bundled_root() / "tasks").resolve().parent


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> DataDir | None:
    """Pick the data directory: explicit argument > $KLEVAL_DATA_DIR > ../shared/data > None (hub)."""
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.is_dir():
            raise DataError(f"data directory {path} does not exist; pass an existing --data-dir")
        return DataDir(path, "argument")
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise DataError(f"{DATA_DIR_ENV}={env} is not a directory; point it at the benchmark data")
        return DataDir(path, "environment")
    default = project_root().parent / "shared" / "data"
    if default.is_dir():
        return DataDir(default, "default")
    return None


@dataclass(frozen=True)
class Row:
    """One raw record and where it came from, for error messages (`file:line` or hub row)."""

    index: int  # 0-based position in the source, before any filtering
    where: str
    record: Mapping[str, Any]


def read_jsonl(path: Path) -> Iterator[Row]:
    """Yield the rows of a JSONL file; blank lines are skipped, a bad line is a DataError."""
    if not path.is_file():
        raise DataError(f"{path}: data file not found")
    index = 0
    with path.open("rb") as handle:  # decoded line by line, so bad bytes are reported with their line
        for line_no, raw in enumerate(handle, start=1):
            where = f"{path}:{line_no}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"{where}: not valid UTF-8 (byte {exc.start + 1} of the line)") from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(record, dict):
                raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}")
            yield Row(index, where, record)
            index += 1


def read_hub(hf_id: str, config: str | None, split: str) -> Iterator[Row]:
    """Yield the rows of a Hugging Face hub dataset split (needs network access to the hub)."""
    label = f"hf:{hf_id}" + (f"/{config}" if config else "") + f"[{split}]"
    try:
        import datasets  # heavy; only when a task is actually read from the hub
    except ImportError as exc:
        raise DataError(f"{label}: the `datasets` package is needed to read from the hub") from exc
    try:
        dataset = datasets.load_dataset(hf_id, config or None, split=split)
    except Exception as exc:  # datasets raises many unrelated types for "not reachable/not found"
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataError(
            f"{label}: could not load from the Hugging Face hub ({first_line}); "
            f"set --data-dir or {DATA_DIR_ENV} to a directory with the local copy"
        ) from exc
    for index, record in enumerate(dataset):
        yield Row(index, f"{label} row {index}", record)


def get_field(record: Mapping[str, Any], dotted: str, where: str, default: Any = _MISSING) -> Any:
    """Follow a dotted path ("question.stem", "final_answer.0") into a record."""
    value: Any = record
    for part in dotted.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif default is not _MISSING:
            return default
        else:
            raise DataError(f"{where}: missing field '{dotted}'")
    return value


def hash_file(path: Path) -> str:
    """sha256 of a file's bytes, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def hash_json(value: Any) -> str:
    """sha256 of a value's canonical JSON (sorted keys), hex."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_THOUSANDS = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")
_LEADING_ZEROS = re.compile(r"^(-?)0+(\d)")
_DOLLAR = re.compile(r"(?<!\\)\$")


def answer_text(value: Any, where: str) -> str:
    """Turn a raw gold value into a clean answer string, or raise a DataError naming the row.

    Floats that hold integers become integers ("27.0" -> "27"); integers keep no leading zeros
    ("025" -> "25"); thousands separators go ("2,125" -> "2125"); an answer wrapped in $...$ loses
    its math delimiters ("$\\frac{1}{2}$" -> "\\frac{1}{2}", "$(0,1)$." -> "(0,1)").
    """
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise DataError(f"{where}: gold answer must be a string or number, got {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise DataError(f"{where}: gold answer is not a finite number: {value!r}")
        return str(int(value)) if value.is_integer() else repr(value)
    text = str(value).strip()
    if text.startswith("$") and text.rstrip(".").endswith("$"):
        text = _DOLLAR.sub("", text.rstrip(".")).strip()
    if _THOUSANDS.match(text):
        text = text.replace(",", "")
    if re.fullmatch(r"-?\d+", text):
        text = _LEADING_ZEROS.sub(r"\1\2", text)
    if not text:
        raise DataError(f"{where}: gold answer is empty")
    return text


def choice_list(
    value: Any, where: str, text_key: str = "text", label_key: str = "label"
) -> tuple[list[str], list[str]]:
    """Return (texts, labels) of the options, from any of the shapes datasets use.

    Accepted: a list of strings (MMLU), a list of {text, label} objects (ARC files), or a
    {text: [...], label: [...]} object of parallel lists (ARC on the hub). Labels default to
    the option's position as a string.
    """
    if isinstance(value, Mapping) and isinstance(value.get(text_key), list):
        texts = list(value[text_key])
        labels = list(value.get(label_key) or [str(i) for i in range(len(texts))])
    elif isinstance(value, list) and all(isinstance(v, Mapping) for v in value):
        try:
            texts = [v[text_key] for v in value]
        except KeyError as exc:
            raise DataError(f"{where}: an option has no '{text_key}' key") from exc
        labels = [str(v.get(label_key, i)) for i, v in enumerate(value)]
    elif isinstance(value, list):
        texts, labels = list(value), [str(i) for i in range(len(value))]
    else:
        raise DataError(f"{where}: options must be a list, got {type(value).__name__}")
    if len(texts) < 2 or len(texts) != len(labels):
        raise DataError(f"{where}: expected at least two options with one label each, got {len(texts)}")
    if len(texts) > 26:
        raise DataError(f"{where}: {len(texts)} options is more than the letters A-Z")
    return [str(t).strip() for t in texts], [str(label).strip() for label in labels]


@dataclass(frozen=True)
class Fields:
    """Where each part of a problem lives in a raw row (dotted paths)."""

    question: str
    answer: str
    id: str | None = None
    reference: str | None = None
    choices: str | None = None
    metadata: tuple[str, ...] = ()
    choice_text: str = "text"
    choice_label: str = "label"


@dataclass(frozen=True)
class Reading:
    """How rows become problems: the field map, the gold rule and the row filters."""

    fields: Fields
    gold: str
    filters: tuple[tuple[str, Any], ...] = ()


def derive_gold(rule: str, raw: Any, labels: list[str], where: str, field_path: str) -> str:
    """Apply a spec's gold rule to the raw answer field of one row."""
    if rule in ("last_boxed", "gsm8k_final"):
        from kleval.verify import extract

        found = getattr(extract, rule)(str(raw))
        if found is None:
            what = "\\boxed{}" if rule == "last_boxed" else "'#### <answer>' line"
            raise DataError(f"{where}: no {what} in field '{field_path}'")
        return answer_text(found, where)
    if rule == "field":
        return answer_text(raw, where)
    n = len(labels)
    if rule == "letter":
        letter = str(raw).strip().upper()
        index = LETTERS.find(letter) if len(letter) == 1 else -1
    elif rule == "index_to_letter":
        index = int(raw) if isinstance(raw, int) or str(raw).strip().isdigit() else -1
    else:  # label_to_letter
        index = labels.index(str(raw).strip()) if str(raw).strip() in labels else -1
    if not 0 <= index < n:
        raise DataError(f"{where}: answer {raw!r} does not name one of the {n} options")
    return LETTERS[index]


def row_problem(row: Row, reading: Reading, kind: AnswerKind) -> Problem | None:
    """One raw row -> a Problem, or None when the spec's filters leave the row out."""
    record, where, f = row.record, row.where, reading.fields
    for path, wanted in reading.filters:
        value = get_field(record, path, where)
        if value not in (wanted if isinstance(wanted, list) else [wanted]):
            return None
    question = get_field(record, f.question, where)
    if not isinstance(question, str) or not question.strip():
        raise DataError(f"{where}: field '{f.question}' must be a non-empty string")
    texts, labels = [], []
    if f.choices:
        texts, labels = choice_list(get_field(record, f.choices, where), where, f.choice_text, f.choice_label)
    gold = derive_gold(reading.gold, get_field(record, f.answer, where), labels, where, f.answer)
    reference = get_field(record, f.reference, where, None) if f.reference else None
    metadata = {path: get_field(record, path, where, None) for path in f.metadata}
    return Problem(
        id=str(get_field(record, f.id, where)) if f.id else str(row.index),
        question=question.strip(), gold=gold, kind=kind, choices=tuple(texts),
        reference=reference if isinstance(reference, str) else None,
        metadata={**metadata, "row": row.index},
    )
