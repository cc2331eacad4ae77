"""Read the training configuration other trainers save beside a checkpoint, in kleval's KL terms.

TRL pickles its config (`training_args.bin`); it is read here by an unpickler that builds no
foreign class and runs no foreign code. verl saves a Hydra YAML, OpenRLHF an args JSON, kleval
its `kleval_run.json`. Each reader returns `(kl, train_config)` where `kl` uses kleval's
vocabulary so reports label every run alike:

    {"estimator": "k1"|"k2"|"k3"|"none"|<raw name>, "placement": "reward"|"loss"|"both"|"none",
     "beta": float, "source": trainer, ...details such as "aggregation", "adaptive", "clamp"}

With placement "both", `reward_estimator`, `loss_estimator`, `reward_beta`, `loss_beta` say which
is which. How each trainer's settings map is tabulated in docs/backends.md.
"""
from __future__ import annotations

import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

from kleval.errors import CheckpointError

# verl and OpenRLHF estimator names -> kleval's (K1 = d, K2 = d^2/2, K3 = exp(-d) - 1 + d).
_ESTIMATOR_NAMES = {"kl": "k1", "k1": "k1", "mse": "k2", "k2": "k2", "low_var_kl": "k3", "k3": "k3",
                    "k3+": "k3", "k1+": "k1", "k2+": "k2"}
# TRL GRPO loss_type -> how per-token terms (the KL included) are averaged.
_TRL_AGGREGATION = {"grpo": "seq-mean-token-mean", "bnpo": "token-mean", "dapo": "token-mean",
                    "dr_grpo": "seq-mean-token-sum-norm"}


def no_kl(source: str) -> dict[str, Any]:
    return {"estimator": "none", "placement": "none", "beta": 0.0, "source": source}


def kl_block(source: str, reward: tuple[str, float] | None, loss: tuple[str, float] | None,
             **details: Any) -> dict[str, Any]:
    """Combine a reward-side and a loss-side KL term (estimator, beta) into one kleval KL dict."""
    reward = reward if reward and reward[1] else None
    loss = loss if loss and loss[1] else None
    if reward is None and loss is None:
        return {**no_kl(source), **details}
    if reward and loss:
        estimator = reward[0] if reward[0] == loss[0] else f"{reward[0]}+{loss[0]}"
        block = {"estimator": estimator, "placement": "both", "beta": loss[1] if reward[1] == loss[1] else None,
                 "reward_estimator": reward[0], "reward_beta": reward[1],
                 "loss_estimator": loss[0], "loss_beta": loss[1]}
    else:
        (estimator, beta), placement = (reward, "reward") if reward else (loss, "loss")
        block = {"estimator": estimator, "placement": placement, "beta": beta}
    return {**block, "source": source, **details}


def estimator_name(raw: Any) -> str:
    text = str(raw).strip().lower()
    return _ESTIMATOR_NAMES.get(text, text)


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
    if "num_generations" in args and "beta" in args:
        return "grpo"
    return "unknown"


def trl_kl(kind: str, args: dict[str, Any]) -> dict[str, Any]:
    """TRL GRPO: K3 in the loss. RLOO: K1 in the reward. PPO: kl_estimator in the reward."""
    if kind == "grpo":
        beta = float(args.get("beta", 0.0) or 0.0)
        loss_type = args.get("loss_type")
        return kl_block("trl-grpo", None, ("k3", beta), aggregation=_TRL_AGGREGATION.get(loss_type, loss_type))
    if kind == "rloo":
        beta = float(args.get("beta", args.get("kl_coef", 0.0)) or 0.0)
        return kl_block("trl-rloo", (estimator_name(args.get("kl_estimator", "k1")), beta), None)
    if kind == "ppo":
        beta = float(args.get("kl_coef", 0.0) or 0.0)
        return kl_block("trl-ppo", (estimator_name(args.get("kl_estimator", "k1")), beta), None)
    return {"estimator": "unknown", "placement": "unknown", "beta": None, "source": "trl"}


def read_trl(checkpoint_dir: Path) -> tuple[int | None, dict[str, Any] | None, dict[str, Any] | None]:
    """(global_step, kl, training args) of a TRL `checkpoint-N` directory."""
    step = None
    state_file = checkpoint_dir / "trainer_state.json"
    if state_file.is_file():
        step = load_json(state_file).get("global_step")
    args: dict[str, Any] | None = None
    class_name = ""
    for candidate in (checkpoint_dir / "training_args.json", checkpoint_dir.parent / "training_args.json"):
        if candidate.is_file():
            args = load_json(candidate)
            break
    if args is None and (checkpoint_dir / "training_args.bin").is_file():
        class_name, args = read_pickled_args(checkpoint_dir / "training_args.bin")
    if args is None:
        return step, None, None
    card = ""
    for readme in (checkpoint_dir / "README.md", checkpoint_dir.parent / "README.md"):
        if readme.is_file():
            card = readme.read_text(errors="replace")
            break
    kind = trl_trainer_kind(class_name, args, card)
    return step, trl_kl(kind, args), {"trainer": f"trl-{kind}", **args}


# ---- verl ------------------------------------------------------------------------------------


def find_verl_config(step_dir: Path) -> Path | None:
    """The run's Hydra config: beside the step, in the run directory, or in a .hydra folder."""
    run_dir = step_dir.parent
    for folder in (step_dir, step_dir / "actor", run_dir, run_dir / ".hydra", step_dir / ".hydra"):
        for name in ("config.yaml", "verl_config.yaml"):
            if (folder / name).is_file():
                return folder / name
    return None


def read_verl(config_file: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(kl, config) from a verl Hydra config (algorithm.* for the reward, actor.* for the loss)."""
    import yaml

    try:
        config = yaml.safe_load(config_file.read_text())
    except yaml.YAMLError as exc:
        raise CheckpointError(f"cannot parse {config_file}: {str(exc).splitlines()[0]}") from exc
    if not isinstance(config, dict):
        raise CheckpointError(f"{config_file} is not a verl config (expected a mapping)")
    algorithm = config.get("algorithm") or {}
    actor = (config.get("actor_rollout_ref") or {}).get("actor") or {}
    kl_ctrl = algorithm.get("kl_ctrl") or {}
    reward = None
    if algorithm.get("use_kl_in_reward"):
        reward = (estimator_name(algorithm.get("kl_penalty", "kl")), float(kl_ctrl.get("kl_coef", 0.001)))
    loss = None
    if actor.get("use_kl_loss"):
        loss = (estimator_name(actor.get("kl_loss_type", "low_var_kl")), float(actor.get("kl_loss_coef", 0.001)))
    details: dict[str, Any] = {"aggregation": actor.get("loss_agg_mode")}
    if reward and kl_ctrl.get("type") == "adaptive":
        details["adaptive"] = True
    if "low_var_kl" in (algorithm.get("kl_penalty"), actor.get("kl_loss_type")):
        details["clamp"] = 10.0  # verl clamps its low_var_kl (K3) estimate to [-10, 10]
    return kl_block("verl", reward, loss, **details), config


# ---- OpenRLHF ----------------------------------------------------------------------------------


def find_openrlhf_args(hf_dir: Path) -> Path | None:
    for folder in (hf_dir, hf_dir.parent):
        for name in ("args.json", "training_args.json", "train_args.json"):
            if (folder / name).is_file():
                return folder / name
    return None


def read_openrlhf(args_file: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """OpenRLHF: init_kl_coef with kl_estimator, in the loss when use_kl_loss, else in the reward."""
    args = load_json(args_file)
    beta = float(args.get("init_kl_coef", 0.0) or 0.0)
    term = (estimator_name(args.get("kl_estimator", "k1")), beta)
    details = {"adaptive": True} if args.get("kl_target") else {}
    if args.get("use_kl_loss"):
        return kl_block("openrlhf", None, term, **details), args
    return kl_block("openrlhf", term, None, **details), args


# ---- kleval ---------------------------------------------------------------------------------


def read_kleval(run_file: Path) -> tuple[int | None, str | None, dict[str, Any] | None, dict[str, Any]]:
    """(step, preset, kl, config) from a kleval_run.json."""
    data = load_json(run_file)
    config = data.get("config") or {}
    kl = config.get("kl")
    if isinstance(kl, dict):
        kl = {**kl, "source": "kleval"}
    return data.get("step"), data.get("preset"), kl, config


def load_json(path: Path) -> dict[str, Any]:
    """A JSON object from disk, or a CheckpointError naming the file."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}; the file is corrupt or incomplete") from exc
    if not isinstance(data, dict):
        raise CheckpointError(f"{path} does not hold a JSON object")
    return data
