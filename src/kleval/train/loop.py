"""The RL training loop, top to bottom: rollouts, rewards, KL, advantages, loss, update, log, save.

One step (on-policy by default: one gradient update per batch of fresh rollouts):
 1. pick prompts_per_step training problems, sample samples_per_prompt responses each;
 2. grade every response with Task.reward (the same grader as `kleval eval`);
 3. one forward of the policy (with gradient) and of the frozen reference over prompt + response;
 4. KL per the KLConfig: detached into the reward, and/or differentiated in the loss;
 5. RLOO or GRPO advantages; clipped policy-gradient loss + KL loss; Adam with gradient clipping;
 6. log diagnostics (exact KL, every estimator, entropy, ...) and save global_step_N/ now and then.
Off-policy: `staleness` trains on rollouts from the policy N updates ago, `ppo_epochs` reuses a
batch for several clipped updates; the sampling policy's log-probs then come from the trainer's
own forward at rollout time.
"""
from __future__ import annotations

import random
import time
from collections import deque
from pathlib import Path

from kleval.errors import ConfigError
from kleval.train import checkpoint as ckpt
from kleval.train import data_parallel, sharding
from kleval.train.advantage import compute_advantages
from kleval.train.config import TrainConfig
from kleval.train.diagnostics import StepLogger, exact_kl_statistics
from kleval.train.kl import kl_terms
from kleval.train.loss import compute_loss
from kleval.train.rollout import response_logits, sample

RESUMABLE_CHANGES = {"steps", "save_every", "log_every", "threads"}


def _check_run_dir(run_dir: Path, config: TrainConfig) -> None:
    """Refuse to mix two different configurations in one run directory."""
    existing = run_dir / ckpt.RUN_FILE
    if not existing.exists():
        return
    previous = ckpt.load_run_file(run_dir).get("config") or {}  # a corrupt file is a one-line CheckpointError
    current = config.to_dict()
    defaults = TrainConfig().to_dict()  # a setting added since that run was written had its default
    differing = sorted(k for k in set(previous) | set(current)
                       if previous.get(k, defaults.get(k)) != current.get(k) and k not in RESUMABLE_CHANGES)
    if differing:
        raise ConfigError(f"{run_dir} holds a run with different settings ({', '.join(differing)}); "
                          "use a new --out directory or the same settings to resume")


def _gather(logprobs_full, tokens):
    """Log-prob of each chosen token: [B, T, V] x [B, T] -> [B, T]."""
    return logprobs_full.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)


def train(config: TrainConfig, run_dir: str | Path, *, progress: bool = True, task=None) -> Path:
    """Run (or resume) RL training into run_dir; returns the last step directory."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from kleval.tasks import load_task

    # -- setup ---------------------------------------------------------------------------------
    if not config.model:
        raise ConfigError("no base model given; pass --model DIR or use --tiny")
    sharded = config.sharding == "fsdp"
    ranks, device = data_parallel.setup(config.device, sharded=sharded)  # torchrun: one rank per GPU
    progress = progress and ranks.is_main
    run_dir = Path(run_dir)
    if ranks.is_main:
        run_dir.mkdir(parents=True, exist_ok=True)
        _check_run_dir(run_dir, config)
        ckpt.write_run_file(run_dir, config, step=0)
    data_parallel.barrier(ranks)
    prompts_per_rank = max(config.prompts_per_step // ranks.world_size, 1)
    if config.device == "cpu" and config.threads:
        torch.set_num_threads(config.threads)
    dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[config.dtype]
    task = task or load_task(config.task)
    problems = task.problems()
    tokenizer = AutoTokenizer.from_pretrained(config.model)
    resumable = ckpt.latest_resumable(run_dir)  # (step, global_step_N/) holding trainer state, or None
    start_step = resumable[0] if resumable else 0
    load = dict(dtype=dtype, attn_implementation=config.attention)
    # FSDP keeps fp32 master weights (bf16 is its compute dtype); unsharded, the policy is in `dtype`.
    policy = AutoModelForCausalLM.from_pretrained(resumable[1] if resumable else config.model,
                                                  **{**load, "dtype": torch.float32} if sharded else load)
    reference = AutoModelForCausalLM.from_pretrained(config.model, **load).eval()
    reference.requires_grad_(False)
    if sharded:  # each rank keeps 1/world_size of both models; fully_shard moves the shards to `device`
        policy, reference = sharding.shard_models(policy, reference, dtype=config.dtype)
    else:
        policy, reference = policy.to(device), reference.to(device)
    policy.train()
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate, betas=config.adam_betas,
                                 weight_decay=config.weight_decay)
    rank_seed = config.seed + 100_003 * ranks.rank  # rank 0 of a multi-GPU run = the single-device run
    prompt_rng = random.Random(rank_seed)
    torch.manual_seed(rank_seed)
    sampler = torch.Generator(device=device).manual_seed(rank_seed)
    if resumable:
        state = ckpt.load_trainer_state(resumable[1]) if ranks.is_main or not sharded else None  # FSDP: rank 0 broadcasts
        sharding.load_optimizer_state_dict(policy, optimizer, state and state["optimizer"], ranks)
        rng_states = data_parallel.scatter_object(state and state.get("rank_rng"), ranks)
        if rng_states is not None:  # every rank continues its own streams: resume is exact
            prompt_rng.setstate(rng_states["prompt_rng"])
            sampler.set_state(rng_states["sampler"])
            torch.set_rng_state(rng_states["torch_rng"])
        else:  # saved by a different number of ranks: reseed per resume step
            prompt_rng.seed(rank_seed + start_step)
            sampler.manual_seed(rank_seed + start_step)
    engine = None
    if config.rollout_backend == "vllm":  # GPU only; untested on GPU (see vllm_rollout.py)
        from kleval.train.vllm_rollout import VLLMRollout

        engine = VLLMRollout(config.model, seed=config.seed)
        engine.push_weights(sharding.full_parameters(policy))
    logger = StepLogger(run_dir, resume_step=start_step, tensorboard=ranks.is_main) if ranks.is_main else None
    reward_memo: dict[tuple[str, str], float] = {}  # Task.reward is deterministic: grade each answer once
    rollout_queue: deque = deque()  # batches waiting to be trained on (off-policy staleness)
    max_length = config.max_new_tokens
    started = time.time()

    def prompt_text(problem) -> str:
        """The task's prompt; chat tasks are wrapped as one user turn, as the eval backends do."""
        text = task.prompt(problem)
        if task.chat and tokenizer.chat_template:
            return tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False,
                                                 add_generation_prompt=True)
        return text

    def make_rollout():
        chosen = [prompt_rng.choice(problems) for _ in range(prompts_per_rank)]
        sampling = dict(samples_per_prompt=config.samples_per_prompt, max_new_tokens=config.max_new_tokens,
                        temperature=config.temperature)
        if engine is not None:
            batch = engine.sample(tokenizer, [prompt_text(p) for p in chosen], seed=prompt_rng.randrange(2**31),
                                  **sampling)
        else:
            policy.eval()
            with sharding.gathered_for_sampling(policy):  # FSDP: ranks sample different lengths
                batch = sample(config.rollout_backend, policy, tokenizer, [prompt_text(p) for p in chosen],
                               generator=sampler, **sampling)
            policy.train()
        graded = []
        for i, text in zip(batch.prompt_index, batch.texts):
            key = (chosen[i].id, text)
            if key not in reward_memo:
                reward_memo[key] = task.reward(chosen[i], text)
            graded.append(reward_memo[key])
        rewards = torch.tensor(graded, dtype=torch.float32, device=device)  # [B]
        old_logprobs = None
        if not config.on_policy:  # the sampling policy's log-probs, from the trainer's own forward
            with torch.no_grad():
                old_logprobs = _gather(torch.log_softmax(response_logits(policy, batch, config.temperature), -1),
                                       batch.response_ids)
        # For "exact" tasks a reward for anything but the gold string means the grader accepted an
        # expression or a variant ("85+46" for 131): a reward hack worth seeing in the logs.
        loose = None
        if task.policy == "exact":
            rewarded = [(chosen[i], text) for i, text, r in zip(batch.prompt_index, batch.texts, rewards.tolist()) if r > 0]
            loose = sum(text.strip() != p.gold for p, text in rewarded) / max(len(rewarded), 1)
        return batch, rewards, old_logprobs, loose

    bar = range(start_step + 1, config.steps + 1)
    if progress:
        from tqdm import tqdm

        bar = tqdm(bar, initial=start_step, total=config.steps, desc=f"train {config.preset or 'custom'}", unit="step")
    last_dir = None
    for step in bar:
        step_started, step_cpu_started = time.time(), time.process_time()
        # -- 1-2. rollouts and rewards (a pipeline `staleness` batches deep) --------------------
        while len(rollout_queue) < config.staleness + 1:
            rollout_queue.append(make_rollout())
        batch, rewards, old_logprobs, loose_reward_rate = rollout_queue.popleft()
        mask = batch.response_mask.to(torch.float32)  # [B, T]
        with torch.no_grad():
            ref_full = torch.log_softmax(response_logits(reference, batch, config.temperature), -1)  # [B, T, V]
        ref_logprobs = _gather(ref_full, batch.response_ids)  # [B, T]

        for epoch in range(config.ppo_epochs):
            # -- 3. policy forward -----------------------------------------------------------------
            policy_full = torch.log_softmax(response_logits(policy, batch, config.temperature), -1)  # [B, T, V]
            logprobs = _gather(policy_full, batch.response_ids)  # [B, T], carries the gradient
            sampling_logprobs = old_logprobs if old_logprobs is not None else logprobs.detach()
            if epoch == 0:
                # -- 4-5a. KL in the reward (detached, from the sampling policy), advantages ---------
                stats = exact_kl_statistics(policy_full.detach(), ref_full, (logprobs - ref_logprobs).detach(), mask)
                kl_reward_per_token = None
                if config.kl.in_reward:
                    kl_reward_per_token, _ = kl_terms(config.kl, sampling_logprobs - ref_logprobs, mask)
                advantages, shaped_rewards = compute_advantages(
                    rewards, kl_reward_per_token, mask, beta=config.kl.beta if config.kl.in_reward else 0.0,
                    samples_per_prompt=config.samples_per_prompt, algorithm=config.algorithm,
                    token_level=config.kl.granularity == "token", scale_by_std=config.grpo_scale_by_std)
            # -- 5b. loss and update -----------------------------------------------------------------
            terms = compute_loss(logprobs, sampling_logprobs, ref_logprobs, advantages, mask, kl=config.kl,
                                 aggregation=config.loss_aggregation, clip_epsilon=config.clip_epsilon,
                                 max_length=max_length)
            optimizer.zero_grad(set_to_none=True)
            split_norms = {}
            if config.kl.in_loss and config.grad_norm_split_every and step % config.grad_norm_split_every == 0:
                # Two backward passes (KL first, then policy) to report each term's gradient norm,
                # both of the rank-averaged gradient (what the update uses).
                terms.kl.backward(retain_graph=True)
                sharding.reduce_gradients(policy, ranks)
                kl_grads = [p.grad.detach().clone() if p.grad is not None else None for p in policy.parameters()]
                split_norms["grad_norm_kl"] = sharding.gradient_norm(kl_grads)
                terms.policy.backward()
                sharding.reduce_gradients(policy, ranks)  # mean(kl_mean + pg_rank) = kl_mean + pg_mean
                split_norms["grad_norm_pg"] = sharding.gradient_norm(
                    [p.grad - g for p, g in zip(policy.parameters(), kl_grads) if p.grad is not None and g is not None])
            else:
                terms.total.backward()
                sharding.reduce_gradients(policy, ranks)  # FSDP: already reduce-scattered in backward
            grad_norm = sharding.clip_gradients(policy, config.max_grad_norm)
            optimizer.step()
        if engine is not None:  # the engine must sample from the policy just trained
            engine.push_weights(sharding.full_parameters(policy))
            if (step - 1) % config.save_every == 0:  # steps 1, 1 + save_every, ... (also when save_every is 1)
                engine.check_logprobs(policy, tokenizer, prompt_text(problems[0]))

        # -- 6. log and save ---------------------------------------------------------------------------
        lengths = mask.sum(-1)
        row = {
            "step": step,
            "reward": float(rewards.mean()),
            "accuracy": float((rewards >= 1.0).float().mean()),
            "shaped_reward": float(shaped_rewards.mean()),
            "rewarded_not_gold_string": loose_reward_rate,
            "response_length": float(lengths.mean()),
            "truncation_rate": float(batch.truncated.float().mean()),
            **stats,
            "loss": float(terms.total.detach()),
            "pg_loss": float(terms.policy.detach()),
            "kl_loss": float(terms.kl.detach()),
            "grad_norm": grad_norm,
            **split_norms,
            "kl_beta_effective_per_sequence": _effective_beta(config, float(lengths.mean())),
            "importance_weight_mean": terms.importance_weight_mean,
            "importance_weight_max": terms.importance_weight_max,
            "clip_fraction": terms.clip_fraction,
            "step_seconds": time.time() - step_started,
            "step_cpu_seconds": time.process_time() - step_cpu_started,  # robust to other load on the machine
            "time": time.time() - started,
        }
        row = data_parallel.average_row(row, ranks, device)
        if ranks.is_main and (step % config.log_every == 0 or step == config.steps):
            logger.log(row)
        if progress:
            bar.set_postfix(reward=f"{row['reward']:.2f}", kl=f"{row['kl_exact']:.3f}")
        if step % config.save_every == 0 or step == config.steps:  # gathers are collectives: every rank
            weights = sharding.full_state_dict(policy, ranks)  # FSDP: full, on rank 0's CPU
            state = {"optimizer": sharding.optimizer_state_dict(policy, optimizer, ranks), "step": step,
                     "rank_rng": data_parallel.gather_object({"prompt_rng": prompt_rng.getstate(),
                                                              "sampler": sampler.get_state(),
                                                              "torch_rng": torch.get_rng_state()}, ranks)}
            if ranks.is_main:
                last_dir = ckpt.save_checkpoint(run_dir, step, policy, tokenizer, config, state, weights=weights)
    if logger is not None:
        logger.close()
    data_parallel.barrier(ranks)
    if last_dir is None:  # nothing left to do: the run was already complete
        last_dir = ckpt.step_dirs(run_dir)[-1][1]
    return last_dir


def _effective_beta(config: TrainConfig, mean_length: float) -> float:
    """Per-sequence strength of the loss-placed KL (see kl.effective_sequence_beta)."""
    from kleval.klconfig import effective_sequence_beta

    length = config.max_new_tokens if config.loss_aggregation == "seq-sum-norm" else mean_length
    in_loss = effective_sequence_beta(config.kl, config.loss_aggregation, length)
    return in_loss + (config.kl.beta if config.kl.in_reward else 0.0)
