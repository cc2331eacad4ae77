"""Find checkpoints to evaluate and read what each one was trained with.

A spec is a model directory, a run directory holding step directories, a GGUF file, or a glob.
Recognized: plain Hugging Face model directories, GGUF files (converted once through the cache of
`kleval.models.gguf`), TRL `checkpoint-N`, verl `global_step_N/actor/huggingface`,
OpenRLHF `*_hf`, and kleval's own `global_step_N` (with `kleval_run.json`). Every checkpoint
comes back with its step, run, tokenizer and RunSettings (the KLConfig, trainer, advantage
estimator, loss aggregation and group size; see `kleval.eval.trainer_configs`), so reports label
results from what is on disk. This `Checkpoint` is the one type the study (checkpoints.json) and
the report use. A trained checkpoint whose KL settings cannot be found is labelled "unknown"
with a one-line warning on stderr; `trainer_config=PATH` names a configuration saved elsewhere.
"""
from __future__ import annotations

import glob
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from kleval.errors import CheckpointError
from kleval.eval import trainer_configs
from kleval.klconfig import ESTIMATORS, PLACEMENTS, KLConfig, RunSettings
from kleval.models import gguf

WEIGHT_PATTERNS = ("*.safetensors", "pytorch_model*.bin", "model.safetensors.index.json",
                   "pytorch_model.bin.index.json")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")
_TRL_STEP = re.compile(r"^checkpoint-(\d+)$")
_GLOBAL_STEP = re.compile(r"^global_step_?(\d+)$")
_OPENRLHF_STEP = re.compile(r"^(?:global_step_?)?(\d+)?.*_hf$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Checkpoint:
    """One model to evaluate: where it is, how to call it, and what it was trained with."""

    path: Path
    label: str  # unique within a discovery, safe as a directory name
    format: str  # hf | trl | verl | openrlhf | kleval | gguf
    step: int | None
    run: str | None
    tokenizer_path: Path | str
    settings: RunSettings | None = None  # None: not a training run's checkpoint (a plain model)
    train_config: dict[str, Any] | None = None  # the trainer's own configuration, as saved
    train_log: str | None = None  # the run's train_log.jsonl (inside the study once evaluated)

    @property
    def kl(self) -> KLConfig | None:
        return self.settings.kl if self.settings else None

    @property
    def kl_label(self) -> str | None:
        """label() of the run's settings ("k3-loss β=0.1", "unknown (verl)"); None for a plain model."""
        return self.settings.label() if self.settings else None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "path": str(self.path), "format": self.format, "step": self.step,
                "run": self.run, "tokenizer_path": str(self.tokenizer_path), "kl_label": self.kl_label,
                "settings": self.settings.to_dict() if self.settings else None,
                "train_config": self.train_config, "train_log": self.train_log}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Checkpoint":
        """A checkpoint as recorded in a study's checkpoints.json (older studies included)."""
        settings = d.get("settings")
        return cls(path=Path(str(d.get("path") or "")), label=str(d["label"]), format=str(d.get("format") or "hf"),
                   step=d.get("step"), run=d.get("run"), tokenizer_path=str(d.get("tokenizer_path") or ""),
                   settings=RunSettings.from_dict(settings) if settings else _legacy_settings(d),
                   train_config=d.get("train_config"), train_log=d.get("train_log"))


def _legacy_settings(d: Mapping[str, Any]) -> RunSettings | None:
    """Settings of a checkpoints.json entry written before RunSettings (a "kl" dict and a "preset")."""
    kl, config = d.get("kl"), d.get("train_config")
    if not kl and not d.get("preset"):
        return None
    if isinstance(config, Mapping) and isinstance(config.get("kl"), Mapping):
        return trainer_configs.trainers.from_kleval(config).settings
    kl = kl or {}
    trainer = str(kl.get("source") or d.get("format") or "unknown")
    if kl.get("estimator") in ESTIMATORS and kl.get("placement") in PLACEMENTS and kl.get("beta") is not None:
        return RunSettings(trainer, KLConfig(kl["estimator"], kl["placement"], float(kl["beta"])))
    return RunSettings(trainer, None)


def discover(specs: str | Sequence[str], *, tokenizer: str | Path | None = None,
             trainer_config: str | Path | None = None) -> list[Checkpoint]:
    """Expand specs into checkpoints, sorted by run then step, with unique labels.

    trainer_config: a training configuration saved away from the checkpoints (verl's Hydra
    config.yaml, an OpenRLHF args JSON, TRL's training_args, a kleval_run.json); it then
    describes every checkpoint found.
    """
    if isinstance(specs, (str, Path)):
        specs = [str(specs)]
    found: dict[Path, Checkpoint] = {}
    notes: list[str] = []
    for spec in specs:
        for model_dir in _expand(str(spec)):
            resolved = model_dir.resolve()
            if resolved not in found:
                found[resolved] = _read_checkpoint(model_dir, tokenizer, notes)
    if trainer_config is not None:
        fmt, reading, config = trainer_configs.read_trainer_config(trainer_config)
        notes = [f"{trainer_config}: {note}" for note in reading.notes]
        found = {key: replace(c, settings=reading.settings, train_config=config) for key, c in found.items()}
    unknown_runs = {(c.format, str(c.path.parent if c.run else c.path)) for c in found.values()
                    if c.settings is not None and c.settings.kl is None}
    notes += [f"{where}: no {fmt} KL settings found; labelled 'unknown' (pass --trainer-config PATH)"
              for fmt, where in sorted(unknown_runs)]
    _warn(notes)
    ordered = sorted(found.values(), key=lambda c: (c.run or c.label, c.step if c.step is not None else -1, str(c.path)))
    return _with_unique_labels(ordered)


# ---- spec -> model directories ------------------------------------------------------------------


def _expand(spec: str) -> list[Path]:
    if glob.has_magic(spec):
        matches = [Path(m) for m in sorted(glob.glob(spec)) if Path(m).is_dir() or gguf.is_gguf_file(m)]
        if not matches:
            raise CheckpointError(f"the pattern {spec!r} matches no directory or GGUF file; "
                                  "check the path and quote the glob")
        return [d for m in matches for d in _model_dirs(m)]
    path = Path(spec)
    if not path.exists():
        raise CheckpointError(f"checkpoint path {spec} does not exist")
    if not path.is_dir() and not gguf.is_gguf_file(path):
        raise CheckpointError(f"checkpoint path {spec} is a file; give the model directory that holds it")
    return _model_dirs(path)


def _model_dirs(path: Path) -> list[Path]:
    """The model directories a path stands for: itself, its verl actor folder, or its steps."""
    if gguf.is_gguf_file(path):
        return [gguf.convert_gguf(path)]
    if (path / "config.json").is_file():
        return [path]
    verl_hf = path / "actor" / "huggingface"
    if verl_hf.is_dir():
        return [verl_hf]
    steps = []
    for child in sorted(p for p in path.iterdir() if p.is_dir()):
        if (child / "actor" / "huggingface").is_dir():
            steps.append(child / "actor" / "huggingface")
        elif (child / "config.json").is_file() and (
            _TRL_STEP.match(child.name) or _GLOBAL_STEP.match(child.name) or child.name.endswith("_hf")
        ):
            steps.append(child)
    if not steps:
        raise CheckpointError(
            f"no checkpoint found in {path}: expected config.json with weights, or step directories "
            "(checkpoint-N, global_step_N, global_step_N/actor/huggingface, *_hf)"
        )
    return steps


# ---- one model directory -> Checkpoint --------------------------------------------------------------


def _read_checkpoint(model_dir: Path, tokenizer: str | Path | None, notes: list[str]) -> Checkpoint:
    _check_model_files(model_dir)
    tokenizer_path = _tokenizer_for(model_dir, tokenizer)
    fields: dict[str, Any] = {"path": model_dir, "tokenizer_path": tokenizer_path}
    name = model_dir.name
    reading = config = None
    gguf_name = gguf.converted_from(model_dir)  # the GGUF file name when this is a converted cache entry
    if name == "huggingface" and model_dir.parent.name == "actor" and _GLOBAL_STEP.match(model_dir.parent.parent.name):
        step_dir = model_dir.parent.parent
        config_file = trainer_configs.find_verl_config(step_dir)
        reading, config = trainer_configs.read_verl(config_file) if config_file else (None, None)
        fields.update(format="verl", step=int(_GLOBAL_STEP.match(step_dir.name).group(1)), run=step_dir.parent.name)
    elif _TRL_STEP.match(name):
        step, reading, config = trainer_configs.read_trl(model_dir)
        fields.update(format="trl", step=int(step if step is not None else _TRL_STEP.match(name).group(1)),
                      run=model_dir.parent.name)
    elif _GLOBAL_STEP.match(name) and _kleval_run_file(model_dir):
        step, reading, config = trainer_configs.read_kleval(_kleval_run_file(model_dir))
        fields.update(format="kleval", step=int(step if step is not None else _GLOBAL_STEP.match(name).group(1)),
                      run=model_dir.parent.name)
        log = model_dir.parent / "train_log.jsonl"
        fields["train_log"] = str(log.resolve()) if log.is_file() else None
    elif name.endswith("_hf"):
        args_file = trainer_configs.find_openrlhf_args(model_dir)
        reading, config = trainer_configs.read_openrlhf(args_file) if args_file else (None, None)
        digits = _OPENRLHF_STEP.match(name)
        fields.update(format="openrlhf", step=int(digits.group(1)) if digits and digits.group(1) else None,
                      run=model_dir.parent.name)
    elif _GLOBAL_STEP.match(name):
        fields.update(format="hf", step=int(_GLOBAL_STEP.match(name).group(1)), run=model_dir.parent.name)
    elif gguf_name is not None:
        fields.update(format="gguf", step=None, run=None)
    else:
        fields.update(format="hf", step=None, run=None)
    if fields["format"] not in ("hf", "gguf"):  # plain models, not training runs
        fields["settings"] = reading.settings if reading else RunSettings(_TRAINER_OF_FORMAT[fields["format"]], None)
        fields["train_config"] = config
        where = model_dir.parent if fields["run"] else model_dir
        notes.extend(f"{where}: {note}" for note in (reading.notes if reading else ()))
    fields["label"] = _base_label(fields["run"], fields["step"], Path(gguf_name) if gguf_name else model_dir)
    return Checkpoint(**fields)


_TRAINER_OF_FORMAT = {"trl": "trl", "verl": "verl", "openrlhf": "openrlhf", "kleval": "kleval"}


def _warn(lines: Sequence[str]) -> None:
    """One line on stderr per distinct warning (the steps of one run share their configuration)."""
    for line in dict.fromkeys(lines):
        print(f"kleval: warning: {line}", file=sys.stderr)


def _check_model_files(model_dir: Path) -> None:
    config = model_dir / "config.json"
    if not config.is_file():
        raise CheckpointError(f"{model_dir} has no config.json; it is not a Hugging Face model directory")
    trainer_configs.load_json(config)  # a corrupt config.json fails here, with its path
    if not any(any(model_dir.glob(p)) for p in WEIGHT_PATTERNS):
        hint = ""
        if model_dir.name == "huggingface" and model_dir.parent.name == "actor":
            hint = (f"; merge the FSDP shards first: python -m verl.model_merger merge --backend fsdp "
                    f"--local_dir {model_dir.parent} --target_dir {model_dir}")
        raise CheckpointError(f"{model_dir} has no model weights (*.safetensors or pytorch_model*.bin){hint}")


def _tokenizer_for(model_dir: Path, fallback: str | Path | None) -> Path | str:
    if any((model_dir / f).is_file() for f in TOKENIZER_FILES):
        return model_dir
    if fallback is None:
        raise CheckpointError(f"{model_dir} has no tokenizer files; pass one with --tokenizer PATH")
    fallback_path = Path(fallback)
    if fallback_path.exists():
        return fallback_path
    if "/" in str(fallback) and str(fallback).startswith((".", "/", "~")):
        raise CheckpointError(f"tokenizer path {fallback} does not exist")
    return str(fallback)  # a hub id, resolved by the backend


def _kleval_run_file(model_dir: Path) -> Path | None:
    for candidate in (model_dir / "kleval_run.json", model_dir.parent / "kleval_run.json"):
        if candidate.is_file():
            return candidate
    return None


def _base_label(run: str | None, step: int | None, model_dir: Path) -> str:
    if run is not None and step is not None:
        label = f"{run}__step{step}"
    else:
        label = model_dir.name
    return _UNSAFE.sub("_", label).strip("._") or "model"


def _with_unique_labels(checkpoints: list[Checkpoint]) -> list[Checkpoint]:
    """Keep labels unique: a repeated label gets its parent folders' names, then a counter."""
    counts: dict[str, int] = {}
    for c in checkpoints:
        counts[c.label] = counts.get(c.label, 0) + 1
    taken: set[str] = set()
    result = []
    for c in checkpoints:
        label = c.label
        if counts[label] > 1:
            parent = _UNSAFE.sub("_", c.path.resolve().parent.name).strip("._")
            label = f"{parent}__{label}" if parent else label
        base, k = label, 2
        while label in taken:
            label, k = f"{base}-{k}", k + 1
        taken.add(label)
        result.append(replace(c, label=label))
    return result
