"""Everything one training run holds, built fresh or from a resume: models, optimizer, RNG streams,
scorers, the optional vLLM engine and the logger; and the two things that touch the disk (saving a
step directory with its resume state, and reading that state back).

`loop.py` tells the story of a step; this module is the setup that story needs.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kleval.errors import ConfigError
from kleval.train import checkpoint as ckpt
from kleval.train import data_parallel, sharding
from kleval.train.config import TrainConfig

# Settings a resumed run may change: bookkeeping and memory layout, never the numbers trained.
RESUMABLE_CHANGES = {"steps", "save_every", "log_every", "threads", "micro_batch_size", "logits_chunk_mb",
                     "activation_checkpointing"}


@dataclass
class Session:
    config: TrainConfig
    run_dir: Path
    ranks: Any
    device: str
    task: Any
    problems: list
    tokenizer: Any
    policy: Any
    reference: Any
    optimizer: Any
    policy_scorer: Any
    reference_scorer: Any
    prompt_rng: random.Random
    sampler: Any  # torch.Generator of the in-process samplers
    start_step: int
    engine: Any = None  # VLLMRollout, or None for the in-process samplers
    logger: Any = None  # StepLogger on rank 0
    reward_memo: dict = field(default_factory=dict)  # (problem id, response text) -> Task.reward

    @property
    def sharded(self) -> bool:
        return self.config.sharding == "fsdp"


def check_run_dir(run_dir: Path, config: TrainConfig) -> None:
    """Refuse to mix two different configurations in one run directory."""
    existing = run_dir / ckpt.RUN_FILE
    if not existing.exists():
        return
    previous = ckpt.load_run_file(run_dir).get("config") or {}  # a corrupt file is a one-line CheckpointError
    current = config.to_dict()
    # a setting added since that run was written had its default (asdict: also the ones to_dict leaves out)
    defaults = asdict(TrainConfig()) | TrainConfig().to_dict()
    differing = sorted(k for k in set(previous) | set(current)
                       if previous.get(k, defaults.get(k)) != current.get(k) and k not in RESUMABLE_CHANGES)
    if differing:
        raise ConfigError(f"{run_dir} holds a run with different settings ({', '.join(differing)}); "
                          "use a new --out directory or the same settings to resume")


def resolve_model(model: str) -> str:
    """A transformers directory for --model: the directory itself, or a GGUF file's cached
    conversion (kleval.models, converted once and keyed by the file's hash)."""
    path = Path(model)
    if path.suffix.lower() != ".gguf":
        return model
    try:
        from kleval.models import convert_gguf
    except ImportError as error:
        raise ConfigError(f"--model {model}: GGUF files need kleval.models ({error})") from error
    return str(convert_gguf(path))


def open_session(config: TrainConfig, run_dir: str | Path, task=None) -> Session:
    """Set up (or resume) a run: process group, run directory, models, optimizer, RNG, engine, logger."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from kleval.tasks import load_task
    from kleval.train.diagnostics import StepLogger
    from kleval.train.scoring import Scorer, ScoringSettings

    if not config.model:
        raise ConfigError("no base model given; pass --model DIR or use --tiny")
    sharded = config.sharding == "fsdp"
    ranks, device = data_parallel.setup(config.device, sharded=sharded)  # torchrun: one rank per GPU
    run_dir = Path(run_dir)
    if ranks.is_main:
        run_dir.mkdir(parents=True, exist_ok=True)
        check_run_dir(run_dir, config)
        ckpt.write_run_file(run_dir, config, step=0)
    data_parallel.barrier(ranks)
    if config.device == "cpu" and config.threads:
        torch.set_num_threads(config.threads)
    task = task or load_task(config.task)
    model_dir = resolve_model(config.model)  # the run file keeps what the user gave (a .gguf path too)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    if tokenizer.pad_token_id is None:  # many chat models ship no pad token; pads are masked anyway
        tokenizer.pad_token = tokenizer.eos_token
    resumable = ckpt.latest_resumable(run_dir)  # (step, global_step_N/) holding trainer state, or None
    dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[config.dtype]
    load = dict(dtype=dtype, attn_implementation=config.attention)
    # FSDP keeps fp32 master weights (bf16 is its compute dtype); unsharded, the policy is in `dtype`.
    policy = AutoModelForCausalLM.from_pretrained(resumable[1] if resumable else model_dir,
                                                  **{**load, "dtype": torch.float32} if sharded else load)
    reference = AutoModelForCausalLM.from_pretrained(model_dir, **load).eval()
    reference.requires_grad_(False)
    if config.activation_checkpointing:
        policy.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if sharded:  # each rank keeps 1/world_size of both models; fully_shard moves the shards to `device`
        policy, reference = sharding.shard_models(policy, reference, dtype=config.dtype)
    else:
        policy, reference = policy.to(device), reference.to(device)
    policy.train()
    settings = ScoringSettings(micro_batch=config.micro_batch_size, chunk_mb=config.logits_chunk_mb,
                               temperature=config.temperature, autocast_bf16=config.autocast_bf16,
                               share_prompts=not config.activation_checkpointing)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate, betas=config.adam_betas,
                                 weight_decay=config.weight_decay)
    rank_seed = config.seed + 100_003 * ranks.rank  # rank 0 of a multi-GPU run = the single-device run
    torch.manual_seed(rank_seed)
    session = Session(
        config=config, run_dir=run_dir, ranks=ranks, device=device, task=task, problems=task.problems(),
        tokenizer=tokenizer, policy=policy, reference=reference, optimizer=optimizer,
        policy_scorer=Scorer(policy, settings, sharded=sharded),
        reference_scorer=Scorer(reference, settings, sharded=sharded),
        prompt_rng=random.Random(rank_seed), sampler=torch.Generator(device=device).manual_seed(rank_seed),
        start_step=resumable[0] if resumable else 0)
    if resumable:
        restore_trainer_state(session, resumable[1], rank_seed)
    if config.rollout_backend == "vllm":  # GPU only; untested on GPU (see vllm_rollout.py)
        from kleval.train.vllm_rollout import VLLMRollout

        session.engine = VLLMRollout(model_dir, seed=config.seed)
        session.engine.push_weights(sharding.full_parameters(policy))
    if ranks.is_main:
        session.logger = StepLogger(run_dir, resume_step=session.start_step, tensorboard=True)
    return session


def rng_states(session: Session) -> dict:
    """This rank's random streams (prompt choice, sampler, torch's global generator)."""
    import torch

    return {"prompt_rng": session.prompt_rng.getstate(), "sampler": session.sampler.get_state(),
            "torch_rng": torch.get_rng_state()}


def restore_trainer_state(session: Session, step_dir: Path, rank_seed: int) -> None:
    """Adam state and every rank's RNG streams from a step directory (FSDP: rank 0 reads, broadcasts)."""
    import torch

    ranks = session.ranks
    state = ckpt.load_trainer_state(step_dir) if ranks.is_main or not session.sharded else None
    sharding.load_optimizer_state_dict(session.policy, session.optimizer, state and state["optimizer"], ranks)
    streams = data_parallel.scatter_object(state and state.get("rank_rng"), ranks)
    if streams is not None:  # every rank continues its own streams: resume is exact
        session.prompt_rng.setstate(streams["prompt_rng"])
        session.sampler.set_state(streams["sampler"])
        torch.set_rng_state(streams["torch_rng"])
    else:  # saved by a different number of ranks: reseed per resume step
        session.prompt_rng.seed(rank_seed + session.start_step)
        session.sampler.manual_seed(rank_seed + session.start_step)


def save_step(session: Session, step: int) -> Path | None:
    """global_step_<step>/ with the weights, tokenizer, run file and resume state (rank 0 writes;
    the gathers are collectives, so every rank calls this)."""
    ranks = session.ranks
    weights = sharding.full_state_dict(session.policy, ranks)  # FSDP: full, on rank 0's CPU
    state = {"optimizer": sharding.optimizer_state_dict(session.policy, session.optimizer, ranks), "step": step,
             "rank_rng": data_parallel.gather_object(rng_states(session), ranks)}
    if not ranks.is_main:
        return None
    return ckpt.save_checkpoint(session.run_dir, step, session.policy, session.tokenizer, session.config, state,
                                weights=weights)


def close_session(session: Session) -> Path:
    """Close the logger, wait for every rank; the run's last step directory."""
    if session.logger is not None:
        session.logger.close()
    data_parallel.barrier(session.ranks)
    return ckpt.step_dirs(session.run_dir)[-1][1]
