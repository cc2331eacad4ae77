"""Find and parse the training configuration other trainers save near a checkpoint.

This module knows where each trainer writes its configuration and how to parse it safely; what
the settings mean is `kleval.klconfig.trainers`' business. TRL pickles its config
(`training_args.bin`); it is read here by an unpickler that builds no foreign class and runs no
foreign code. verl's Hydra config lands in `outputs/DATE/TIME/.hydra/config.yaml` under the
directory it was launched from (not beside the checkpoints); it is found by walking up from the
step directory and matched by its `trainer.default_local_dir`, and its interpolations are resolved
with OmegaConf. OpenRLHF's arguments come from an args JSON saved by the user (nested
`algo.kl.*` since 0.10.2, flat before), kleval's from `kleval_run.json`. Every reader returns a
`trainers.Reading` (RunSettings + notes); a run whose KL settings cannot be found reads as
RunSettings(trainer, kl=None), labelled "unknown".
"""
from __future__ import annotations

import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

from kleval.errors import CheckpointError, ConfigError
from kleval.klconfig import RunSettings, trainers
from kleval.klconfig.trainers import Reading

# ---- TRL -----------------------------------------------------------------------------------


class _Opaque:
    """Stands in for any class a pickle names: keeps constructor args and state, runs nothing."""

    _pickled_name = "?"

    def __init__(self, *args: Any, **kwargs: Any):
        self.args = args

    def __setstate__(self, state: Any) -> None:
        self.state = state


_SAFE_GLOBALS = {("copyreg", "_reconstructor"), ("builtins", "object"), ("builtins", "set"),
                 ("builtins", "frozenset"), ("collections", "OrderedDict"), ("builtins", "dict"),
                 ("builtins", "list"), ("builtins", "tuple")}


class _InertUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        return type(name, (_Opaque,), {"_pickled_name": f"{module}.{name}"})

    def persistent_load(self, pid: Any) -> None:  # tensor storages in torch.save files
        return None


def _plain(value: Any) -> Any:
    """Turn unpickled stand-ins into JSON-like data (enums become their values)."""
    if isinstance(value, _Opaque):
        state = getattr(value, "state", None)
        if isinstance(state, tuple) and state and isinstance(state[0], dict):
            state = state[0]
        if isinstance(state, dict):
            return {str(k): _plain(v) for k, v in state.items()}
        args = getattr(value, "args", ())
        return _plain(args[0]) if len(args) == 1 else [_plain(a) for a in args]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def read_pickled_args(path: Path) -> tuple[str, dict[str, Any]]:
    """(class name, fields) of a torch-saved TrainingArguments, without importing its class."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                member = next(n for n in archive.namelist() if n.endswith("data.pkl"))
                obj = _InertUnpickler(archive.open(member)).load()
        else:
            with open(path, "rb") as handle:
                obj = _InertUnpickler(handle).load()
    except (pickle.UnpicklingError, StopIteration, EOFError, zipfile.BadZipFile, ValueError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}; delete it or re-save the training arguments") from exc
    fields = _plain(obj)
    if not isinstance(fields, dict):
        raise CheckpointError(f"{path} does not hold training arguments")
    return getattr(obj, "_pickled_name", "?").rsplit(".", 1)[-1], fields


def trl_trainer_kind(class_name: str, args: dict[str, Any], model_card: str) -> str:
    """grpo, rloo, ppo or unknown: from the config class, else the model card, else the fields."""
    for kind in ("grpo", "rloo", "ppo"):
        if class_name.lower().startswith(kind):
            return kind
    card = model_card.lower()
    for kind in ("grpo", "rloo", "ppo"):
        if f"trained with {kind}" in card:
            return kind
    if "rloo_k" in args:
        return "rloo"
    if "cliprange_value" in args:
        return "ppo"
    if "use_bias_correction_kl" in args or "loss_type" in args or ("num_generations" in args and "beta" in args):
        return "grpo"
    return "unknown"


def read_trl(checkpoint_dir: Path) -> tuple[int | None, Reading | None, dict[str, Any] | None]:
    """(global_step, reading, training args) of a TRL `checkpoint-N` directory."""
    step = None
    state_file = checkpoint_dir / "trainer_state.json"
    if state_file.is_file():
        step = load_json(state_file).get("global_step")
    for candidate in (checkpoint_dir / "training_args.bin", checkpoint_dir / "training_args.json",
                      checkpoint_dir.parent / "training_args.json"):
        if candidate.is_file():
            reading, args = read_trl_args(candidate)
            return step, reading, args
    return step, None, None


def read_trl_args(path: Path) -> tuple[Reading, dict[str, Any]]:
    """A TRL training_args.bin (pickled) or .json, in kleval's terms."""
    if path.suffix == ".json":
        class_name, args = "", load_json(path)
    else:
        class_name, args = read_pickled_args(path)
    card = ""
    for readme in (path.parent / "README.md", path.parent.parent / "README.md"):
        if readme.is_file():
            card = readme.read_text(errors="replace")
            break
    return trainers.from_trl(trl_trainer_kind(class_name, args, card), args), {"config_class": class_name, **args}


# ---- verl ------------------------------------------------------------------------------------

_HYDRA_SEARCH_DEPTH = 6  # parent directories searched for outputs/DATE/TIME/.hydra/config.yaml


def find_verl_config(step_dir: Path) -> Path | None:
    """The run's Hydra config: beside the step or in the run directory (copied there), else the
    newest `.hydra/config.yaml` under an ancestor whose trainer.default_local_dir is this run."""
    run_dir = step_dir.parent
    for folder in (step_dir, step_dir / "actor", run_dir, run_dir / ".hydra", step_dir / ".hydra"):
        for name in ("config.yaml", "verl_config.yaml"):
            if (folder / name).is_file():
                return folder / name
    candidates = []
    for ancestor in list(run_dir.resolve().parents)[:_HYDRA_SEARCH_DEPTH]:
        candidates += sorted(ancestor.glob("outputs/*/*/.hydra/config.yaml")) + sorted(ancestor.glob(".hydra/config.yaml"))
    matching = [c for c in candidates if _verl_checkpoint_dir(c) == run_dir.resolve()]
    return max(matching, key=lambda c: (c.parent.parent.parent.name, c.parent.parent.name)) if matching else None


def _verl_checkpoint_dir(config_file: Path) -> Path | None:
    """Where the run of a Hydra config saved its checkpoints (trainer.default_local_dir), resolved
    against the directory it was launched from (hydra.yaml's runtime.cwd, else above outputs/)."""
    try:
        config = _load_omegaconf(config_file)
        local_dir = _select(config, "trainer.default_local_dir")
    except CheckpointError:
        return None
    if not local_dir:
        return None
    launch_dir = config_file.parent.parent
    hydra_file = config_file.parent / "hydra.yaml"
    cwd = None
    if hydra_file.is_file():
        try:
            cwd = _select(_load_omegaconf(hydra_file), "hydra.runtime.cwd")
        except CheckpointError:
            cwd = None
    if cwd:
        launch_dir = Path(cwd)
    elif launch_dir.parent.parent.name == "outputs":  # outputs/DATE/TIME
        launch_dir = launch_dir.parent.parent.parent
    path = Path(str(local_dir)).expanduser()
    return (path if path.is_absolute() else launch_dir / path).resolve()


def _load_omegaconf(path: Path):
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException
    import yaml

    try:
        return OmegaConf.load(path)
    except (OmegaConfBaseException, yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"cannot parse {path}: {str(exc).splitlines()[0]}") from exc


def _select(config, key: str) -> Any:
    """One value with its interpolations resolved (${...}); CheckpointError if they cannot be."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        value = OmegaConf.select(config, key, default=None, throw_on_resolution_failure=True)
    except OmegaConfBaseException as exc:
        raise CheckpointError(f"cannot resolve {key}: {str(exc).splitlines()[0]}") from exc
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value


def read_verl(config_file: Path) -> tuple[Reading, dict[str, Any]]:
    """(reading, config with interpolations left as written) of a verl Hydra config."""
    from omegaconf import DictConfig, OmegaConf

    config = _load_omegaconf(config_file)
    if not isinstance(config, DictConfig):
        raise CheckpointError(f"{config_file} is not a verl config (expected a mapping)")
    resolved: dict[str, Any] = {}
    try:
        for key in trainers.VERL_KEYS:
            value = _select(config, key)
            if value is not None:
                node = resolved
                *parents, leaf = key.split(".")
                for part in parents:
                    node = node.setdefault(part, {})
                node[leaf] = value
    except CheckpointError as exc:
        return Reading(RunSettings("verl", None), (f"{config_file}: {exc}",)), OmegaConf.to_container(config)
    return trainers.from_verl(resolved), OmegaConf.to_container(config)


# ---- OpenRLHF ----------------------------------------------------------------------------------


def find_openrlhf_args(hf_dir: Path) -> Path | None:
    for folder in (hf_dir, hf_dir.parent, hf_dir.parent.parent):
        for name in ("args.json", "training_args.json", "train_args.json"):
            if (folder / name).is_file():
                return folder / name
    return None


def read_openrlhf(args_file: Path) -> tuple[Reading, dict[str, Any]]:
    """OpenRLHF's saved train_ppo_ray arguments, nested (>= 0.10.2) or flat."""
    args = load_json(args_file)
    return trainers.from_openrlhf(args), args


# ---- kleval ---------------------------------------------------------------------------------


def read_kleval(run_file: Path) -> tuple[int | None, Reading, dict[str, Any]]:
    """(step, reading, config) from a kleval_run.json."""
    data = load_json(run_file)
    config = data.get("config") or {}
    try:
        reading = trainers.from_kleval(config)
    except (ConfigError, TypeError, ValueError) as exc:  # a KL block this kleval cannot read
        reading = Reading(RunSettings("kleval", None), (f"{run_file}: {exc}",))
    return data.get("step"), reading, config


# ---- a configuration file named by the user (--trainer-config) --------------------------------------


def read_trainer_config(path: str | Path) -> tuple[str, Reading, dict[str, Any]]:
    """(format, reading, config) of a training configuration saved anywhere, by its content."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"trainer config {path} does not exist")
    if path.suffix in (".yaml", ".yml"):
        return ("verl", *read_verl(path))
    if path.suffix == ".bin":
        return ("trl", *read_trl_args(path))
    data = load_json(path)
    if isinstance(data.get("config"), dict) and "kl" in data["config"]:
        step, reading, config = read_kleval(path)
        return "kleval", reading, config
    flat = trainers.flatten(data)
    if any(key in flat for new, old, _ in trainers.OPENRLHF_KEYS.values() for key in (new, old)):
        return ("openrlhf", *read_openrlhf(path))
    return ("trl", *read_trl_args(path))


def load_json(path: Path) -> dict[str, Any]:
    """A JSON object from disk, or a CheckpointError naming the file."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}; the file is corrupt or incomplete") from exc
    if not isinstance(data, dict):
        raise CheckpointError(f"{path} does not hold a JSON object")
    return data
