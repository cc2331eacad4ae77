"""Where benchmark rows come from: the data directory, local JSONL files, or the Hugging Face hub.

This module knows nothing about prompts or scoring. It resolves the data directory, reads rows
with their line numbers (so a bad row is reported as `file:line`), loads hub datasets lazily,
follows dotted field paths (`question.stem`, `final_answer.0`) and turns raw gold values
(AMC's float 27.0, AIME's "025", GSM8K's "2,125", OlympiadBench's "$\\frac{1}{2}$") into clean
answer strings.
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

DATA_DIR_ENV = "KLEVAL_DATA_DIR"
_MISSING = object()


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
    """The repository root: src/kleval/data.py -> parents[2]."""
    return Path(__file__).resolve().parents[2]


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
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{line_no}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})") from exc
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
        elif isinstance(value, (list, tuple)) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
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


def choice_list(value: Any, where: str, text_key: str = "text", label_key: str = "label") -> tuple[list[str], list[str]]:
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
