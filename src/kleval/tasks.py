"""Benchmark tasks: declarative TOML specs in tasks/ turned into problems, prompts and grades.

One `Task` object grades both training rewards and evaluation, so the two never drift apart.
A spec (tasks/<name>.toml, no code) names where the data lives (a file under the data directory,
a Hugging Face dataset, or a synthetic generator), which fields hold what, how the gold answer is
derived, and the prompt template - the one place a template lives. docs/tasks.md has the schema.

    task = load_task("math500")
    problems = task.problems(limit=20)
    prompt = task.prompt(problems[0])
    verdict = task.score(problems[0], completion_text)
"""
from __future__ import annotations

import difflib
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from kleval.data import (
    LETTERS, Fields, Reading, hash_file, hash_json, read_hub, read_jsonl,
    resolve_data_dir, row_problem,
)
from kleval.errors import ConfigError, DataError
from kleval.resources import bundled_root
from kleval.types import AnswerKind, Problem, Split, Verdict

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TASKS_DIR_ENV = "KLEVAL_TASKS_DIR"
POLICIES = ("default", "gsm8k", "choice", "exact", "countdown")
GOLD_RULES = ("field", "last_boxed", "gsm8k_final", "letter", "index_to_letter", "label_to_letter")
CHOICE_GOLD_RULES = ("letter", "index_to_letter", "label_to_letter")
PLACEHOLDERS = re.compile(r"\{(question|choices|letters)\}")
CHOICE_LINE = "{letter}. {text}"  # how one option is shown inside {choices}; part of prompt_hash

_TOP_KEYS = {
    "name", "description", "split", "kind", "policy", "chat", "stop", "prompt", "source", "file",
    "hf_id", "hf_config", "hf_split", "gold", "fields", "filters", "hub", "generator", "count",
    "seed", "generator_params",
}
_FIELD_KEYS = {"id", "question", "answer", "reference", "choices", "metadata", "choice_text", "choice_label"}
_HUB_KEYS = {"fields", "gold", "filters"}


@dataclass(frozen=True)
class TaskSpec:
    """A parsed, validated tasks/<name>.toml."""

    name: str
    split: Split
    kind: AnswerKind
    policy: str
    chat: bool
    stop: tuple[str, ...]
    prompt: str
    source: str  # "dataset" or "synthetic"
    spec_hash: str
    description: str = ""
    file: str | None = None
    hf_id: str | None = None
    hf_config: str | None = None
    hf_split: str = "test"
    local: Reading | None = None
    hub: Reading | None = None
    generator: str | None = None
    count: int = 0
    seed: int = 0
    generator_params: Mapping[str, Any] = field(default_factory=dict)


def tasks_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The directory of task specs: explicit > $KLEVAL_TASKS_DIR > the bundled tasks/ (kleval.resources)."""
    path = Path(explicit or os.environ.get(TASKS_DIR_ENV) or bundled_root() / "tasks").expanduser()
    if not path.is_dir():
        raise ConfigError(f"tasks directory {path} does not exist; set {TASKS_DIR_ENV} or --tasks-dir")
    return path


def list_tasks(tasks_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Names of all task specs, sorted."""
    return sorted(p.stem for p in _tasks_dir(tasks_dir).glob("*.toml"))


_tasks_dir = tasks_dir


def _choose(value: Any, allowed: tuple[str, ...], key: str, where: Path) -> str:
    if value not in allowed:
        raise ConfigError(f"{where}: {key} = {value!r} is not one of {', '.join(allowed)}")
    return value


def _reading(fields_raw: Any, gold: Any, filters_raw: Any, kind: AnswerKind, where: Path) -> Reading:
    if not isinstance(fields_raw, dict):
        raise ConfigError(f"{where}: [fields] table is missing")
    unknown = set(fields_raw) - _FIELD_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown [fields] keys {sorted(unknown)}; known: {sorted(_FIELD_KEYS)}")
    for required in ("question", "answer"):
        if not isinstance(fields_raw.get(required), str):
            raise ConfigError(f"{where}: [fields] needs {required} = \"<field path>\"")
    fields = Fields(**{**fields_raw, "metadata": tuple(fields_raw.get("metadata", ()))})
    gold = _choose(gold, GOLD_RULES, "gold", where)
    if (kind is AnswerKind.CHOICE) != (gold in CHOICE_GOLD_RULES):
        raise ConfigError(f"{where}: gold = {gold!r} does not fit kind = {kind.value!r}")
    if kind is AnswerKind.CHOICE and not fields.choices:
        raise ConfigError(f"{where}: a choice task needs [fields] choices = \"<field path>\"")
    if not isinstance(filters_raw, dict):
        raise ConfigError(f"{where}: [filters] must be a table of field = value")
    return Reading(fields, gold, tuple(sorted(filters_raw.items())))


def _generator_params(params: Any, where: Path) -> dict[str, Any]:
    """A synthetic task's [generator_params], checked against what the generators accept."""
    import inspect

    from kleval.synthetic import make_problems

    if not isinstance(params, dict):
        raise ConfigError(f"{where}: generator_params must be a table of name = value")
    parameters = inspect.signature(make_problems).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return dict(params)  # a generator that takes any keyword checks them itself
    accepted = {p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.name not in ("count", "seed")}
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise ConfigError(f"{where}: unknown generator_params {unknown}; accepted: {sorted(accepted)}")
    return dict(params)


def parse_spec(path: Path) -> TaskSpec:
    """Read and validate one spec file; every problem is a ConfigError naming the file."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8 (byte {exc.start + 1})") from None
    unknown = set(raw) - _TOP_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown keys {sorted(unknown)}; see docs/tasks.md for the schema")
    name = raw.get("name", path.stem)
    if name != path.stem:
        raise ConfigError(f"{path}: name = {name!r} must match the file name {path.stem!r}")
    split = Split(_choose(raw.get("split"), tuple(s.value for s in Split), "split", path))
    kind = AnswerKind(_choose(raw.get("kind"), tuple(k.value for k in AnswerKind), "kind", path))
    policy = _choose(raw.get("policy", "default"), POLICIES, "policy", path)
    source = _choose(raw.get("source", "dataset"), ("dataset", "synthetic"), "source", path)
    prompt = raw.get("prompt", "{question}" if source == "synthetic" else None)
    if not isinstance(prompt, str) or "{question}" not in prompt:
        raise ConfigError(f"{path}: prompt must be a template string containing {{question}}")
    if (kind is AnswerKind.CHOICE) != ("{choices}" in prompt):
        raise ConfigError(f"{path}: the prompt must show {{choices}} exactly when kind = \"choice\"")
    stop = raw.get("stop", [])
    if not isinstance(stop, list) or not all(isinstance(s, str) and s for s in stop):
        raise ConfigError(f"{path}: stop must be a list of non-empty strings")
    common = dict(
        name=name, split=split, kind=kind, policy=policy, chat=bool(raw.get("chat", True)),
        stop=tuple(stop), prompt=prompt, source=source, spec_hash=hash_json(raw),
        description=str(raw.get("description", "")),
    )
    if source == "synthetic":
        count = raw.get("count")
        if not isinstance(raw.get("generator"), str) or not isinstance(count, int) or count < 1:
            raise ConfigError(f"{path}: a synthetic task needs generator = \"<name>\" and count >= 1")
        seed = raw.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"{path}: seed must be an integer, got {seed!r}")
        return TaskSpec(
            **common, generator=raw["generator"], count=raw["count"], seed=seed,
            generator_params=_generator_params(raw.get("generator_params", {}), path),
        )
    if not raw.get("file") and not raw.get("hf_id"):
        raise ConfigError(f"{path}: a dataset task needs file = \"<path under the data dir>\" or hf_id")
    local = _reading(raw.get("fields"), raw.get("gold", "field"), raw.get("filters", {}), kind, path)
    hub_raw = raw.get("hub", {})
    if not isinstance(hub_raw, dict) or set(hub_raw) - _HUB_KEYS:
        raise ConfigError(f"{path}: [hub] may only override {sorted(_HUB_KEYS)}")
    hub = _reading(
        {**raw["fields"], **hub_raw.get("fields", {})}, hub_raw.get("gold", local.gold),
        hub_raw.get("filters", raw.get("filters", {})), kind, path,
    )
    return TaskSpec(
        **common, file=raw.get("file"), hf_id=raw.get("hf_id"), hf_config=raw.get("hf_config") or None,
        hf_split=raw.get("hf_split", "test"), local=local, hub=hub,
    )


_CACHE: dict[tuple, tuple[tuple[Problem, ...], str]] = {}
_CACHE_LOCK = threading.Lock()


class Task:
    """A benchmark ready to use: its problems, its prompt and its grader."""

    def __init__(self, spec: TaskSpec, data_file: Path | None):
        self.spec = spec
        self.name = spec.name
        self.split = spec.split
        self.kind = spec.kind
        self.policy = spec.policy
        self.chat = spec.chat
        self.stop = spec.stop
        self.spec_hash = spec.spec_hash
        self.prompt_hash = hash_json({"prompt": spec.prompt, "choice_line": CHOICE_LINE})
        self.data_file = data_file
        self._loaded: tuple[tuple[Problem, ...], str] | None = None

    def __repr__(self) -> str:
        return f"Task({self.name!r}, {self.split.value}, {self.kind.value}, source={self.source})"

    @property
    def source(self) -> str:
        """Where problems come from: the local file, "hf:<id>" or "synthetic:<generator>"."""
        if self.spec.source == "synthetic":
            return f"synthetic:{self.spec.generator}"
        return str(self.data_file) if self.data_file else f"hf:{self.spec.hf_id}"

    @property
    def data_hash(self) -> str:
        """sha256 of the data file; for hub and synthetic data, of the rows/problems read."""
        if self.data_file is not None and self._loaded is None:
            stat = self.data_file.stat()
            return _file_hash(str(self.data_file), stat.st_mtime_ns, stat.st_size)
        return self._load()[1]

    def problems(self, limit: int | None = None) -> list[Problem]:
        """The problems in source order (stable ids); `limit` keeps the first N."""
        if limit is not None and limit < 0:
            raise ConfigError(f"limit must be >= 0, got {limit}")
        problems = self._load()[0]
        return list(problems if limit is None else problems[:limit])

    def prompt(self, problem: Problem) -> str:
        """The prompt text for one problem (chat wrapping, if any, is the backend's job)."""
        letters = LETTERS[: len(problem.choices)]
        lines = [CHOICE_LINE.format(letter=letter, text=text) for letter, text in zip(letters, problem.choices)]
        listed = ", ".join(letters[:-1]) + (", or " if len(letters) > 2 else " or ") + letters[-1] if letters else ""
        values = {"question": problem.question, "choices": "\n".join(lines), "letters": listed}
        return PLACEHOLDERS.sub(lambda m: values[m.group(1)], self.spec.prompt)

    def score(self, problem: Problem, completion_text: str) -> Verdict:
        """Grade one completion against the problem's gold answer."""
        from kleval.verify import verify

        return verify(gold=problem.gold, completion=completion_text, kind=self.kind.value, policy=self.policy)

    def reward(self, problem: Problem, completion_text: str) -> float:
        """1.0 iff the completion is graded correct, else 0.0 (the RL reward)."""
        return 1.0 if self.score(problem, completion_text).correct else 0.0

    def _load(self) -> tuple[tuple[Problem, ...], str]:
        if self._loaded is None:
            key = self._cache_key()
            with _CACHE_LOCK:
                cached = _CACHE.get(key)
            if cached is None:
                cached = self._read()
                with _CACHE_LOCK:
                    _CACHE[key] = cached
            self._loaded = cached
        return self._loaded

    def _cache_key(self) -> tuple:
        if self.data_file is not None:
            stat = self.data_file.stat() if self.data_file.exists() else None
            return (self.spec_hash, str(self.data_file), stat and stat.st_mtime_ns, stat and stat.st_size)
        return (self.spec_hash, self.source)

    def _read(self) -> tuple[tuple[Problem, ...], str]:
        spec = self.spec
        if spec.source == "synthetic":
            problems = tuple(_synthetic_problems(spec))
            return problems, hash_json([(p.id, p.question, p.gold) for p in problems])
        if self.data_file is not None:
            rows, reading = list(read_jsonl(self.data_file)), spec.local
            data_hash = self.data_hash
        else:
            rows, reading = list(read_hub(spec.hf_id, spec.hf_config, spec.hf_split)), spec.hub
            data_hash = hash_json([dict(r.record) for r in rows])
        problems, seen = [], {}
        for row in rows:
            problem = row_problem(row, reading, spec.kind)
            if problem is None:
                continue
            if problem.id in seen:
                raise DataError(f"{row.where}: duplicate problem id {problem.id!r} (also at {seen[problem.id]})")
            seen[problem.id] = row.where
            problems.append(problem)
        if not problems:
            raise DataError(f"{self.source}: no problems left for task {spec.name} after its filters")
        return tuple(problems), data_hash


_FILE_HASHES: dict[tuple[str, int, int], str] = {}


def _file_hash(path: str, mtime_ns: int, size: int) -> str:
    key = (path, mtime_ns, size)
    if key not in _FILE_HASHES:
        _FILE_HASHES[key] = hash_file(Path(path))
    return _FILE_HASHES[key]


def _synthetic_problems(spec: TaskSpec) -> list[Problem]:
    from kleval import synthetic  # written alongside the training loop; imported only when needed

    params = dict(spec.generator_params)
    try:
        problems = synthetic.make_problems(spec.generator, count=spec.count, seed=spec.seed, **params)
    except TypeError as exc:  # a value of the wrong type in the spec's [generator_params]
        raise ConfigError(f"task {spec.name}: generator_params {params} do not fit generator "
                          f"{spec.generator!r} ({exc})") from None
    if len(problems) != spec.count or len({p.id for p in problems}) != len(problems):
        raise DataError(f"synthetic:{spec.generator}: expected {spec.count} problems with distinct ids")
    return list(problems)


def _spec_path(name: str, directory: Path) -> Path:
    if name.endswith(".toml"):
        path = Path(name).expanduser()
        if path.is_file():
            return path
    path = directory / f"{name}.toml"
    if path.is_file():
        return path
    available = list_tasks(directory)
    close = difflib.get_close_matches(name, available, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ConfigError(f"unknown task {name!r}; {hint}available: {', '.join(available) or '(none)'}")


def load_task(
    name: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    tasks_dir: str | os.PathLike[str] | None = None,
) -> Task:
    """Load a task by name (or a path to a .toml spec); data is read lazily by `problems()`."""
    spec = parse_spec(_spec_path(name, _tasks_dir(tasks_dir)))
    if spec.source == "synthetic" or not spec.file:
        return Task(spec, None)
    resolved = resolve_data_dir(data_dir)
    if resolved is not None:
        path = resolved.path / spec.file
        if path.is_file():
            return Task(spec, path)
        if resolved.strict or not spec.hf_id:
            raise DataError(
                f"{path}: data file for task {spec.name} not found; set --data-dir or KLEVAL_DATA_DIR "
                f"to a directory holding {spec.file}"
                + (f", or make the Hugging Face hub reachable for {spec.hf_id}" if spec.hf_id else "")
            )
    elif not spec.hf_id:
        raise DataError(
            f"task {spec.name}: no data directory found and no hf_id; set --data-dir or KLEVAL_DATA_DIR "
            f"to a directory holding {spec.file}"
        )
    return Task(spec, None)
