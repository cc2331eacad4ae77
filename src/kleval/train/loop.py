"""The RL training loop, top to bottom: rollout, reward, KL, advantages, loss, step, log, save.

One step (on-policy by default: one gradient update per batch of fresh rollouts):
 1. rollout: pick prompts_per_step training problems, sample samples_per_prompt responses each;
 2. reward: grade every response with Task.reward (the same grader as `kleval eval`);
 3. KL: score the batch without gradient under the policy and the frozen reference, micro-batch
    by micro-batch and chunk by chunk (scoring.py): the sampled tokens' log-probs, the exact KL
    over the full vocabulary, entropy;
 4. advantages: RLOO or GRPO, after the reward-placed KL (detached, from the sampling policy);
 5. loss: for each micro-batch, a forward with gradient, the clipped policy-gradient loss plus the
    loss-placed KL, backward (gradients accumulate to exactly the whole batch's gradient);
 6. step: average over ranks, clip, Adam (ppo_epochs times on the same batch);
 7. log diagnostics; 8. save global_step_N/ now and then.
Off-policy: `staleness` trains on rollouts from the policy up to N updates ago (exactly N, or the
newest one no older, by `staleness_mode`: train/staleness.py), `ppo_epochs` reuses a
batch for several clipped updates; the sampling policy's log-probs then come from the trainer's
own forward (at rollout time for stale batches, at step 3 otherwise).
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from kleval.train import data_parallel, sharding
from kleval.train.advantage import compute_advantages
from kleval.train.config import TrainConfig
from kleval.train.diagnostics import kl_statistics
from kleval.train.kl import kl_terms
from kleval.train.loss import LossWeights, compute_loss
from kleval.train.rollout import RolloutBatch, sample
from kleval.train.scoring import agree_on_sharing, micro_batches, score_batch, shared_prompt_group
from kleval.train.session import Session, close_session, open_session, save_step
from kleval.train.staleness import sampling_versions


class BiasedConfigurationWarning(UserWarning):
    """A KL configuration whose gradient is biased by how it is combined with the rest of the loss."""


def train(config: TrainConfig, run_dir: str | Path, *, progress: bool = True, task=None, online_eval=None) -> Path:
    """Run (or resume) RL training into run_dir; returns the last step directory.
    online_eval: an online_eval.OnlineEval to evaluate the policy every few steps into a study."""
    warn_if_biased(config)
    run = open_session(config, run_dir, task)
    if online_eval is not None:
        from kleval.train import online_eval as evaluation

        evaluation.at_start(online_eval, run, progress)
    # versions[j]: updates made by the policy that samples step j's batch (j - 1 on-policy; staleness.py)
    versions = sampling_versions(config.steps, config.staleness, config.staleness_mode, config.seed)
    pending: dict[int, Rollout] = {}  # stale batches sampled ahead, by the step that trains them
    next_batch = run.start_step + 1
    started = time.time()
    bar = _progress_bar(run, progress)
    for step in range(run.start_step + 1, config.steps + 1):
        clock = _Clock()
        # the policy now has made step - 1 updates: it samples every batch scheduled for this version
        # (after a resume also those scheduled for earlier ones: the pipeline refills from this policy)
        while next_batch <= config.steps and versions[next_batch] <= step - 1:
            pending[next_batch] = collect_rollout(run, version=step - 1)                  # 1-2. rollout, reward
            next_batch += 1
        rollout = pending.pop(step)
        clock.lap("rollout_seconds")
        scores = score_batch(run.policy_scorer, run.reference_scorer, rollout.batch, run.ranks)  # 3. KL
        clock.lap("score_seconds")
        sampling_logprobs = rollout.old_logprobs if rollout.old_logprobs is not None else scores.logprobs
        advantages, shaped_rewards = reward_advantages(config, rollout, scores, sampling_logprobs)  # 4.
        updates = [update_policy(run, rollout.batch, scores, advantages,                   # 5-6. loss, step
                                 None if config.on_policy else sampling_logprobs, step)
                   for _ in range(config.ppo_epochs)]
        sync_engine(run, step)
        clock.lap("update_seconds")
        row = log_row(config, step, rollout, scores, shaped_rewards, updates, clock, started)
        if config.staleness > 0:  # how many updates the sampling policy is behind the one trained now
            row["rollout_staleness"] = step - 1 - rollout.version
        row = data_parallel.average_row(row, run.ranks, run.device)
        if run.logger is not None and (step % config.log_every == 0 or step == config.steps):
            run.logger.log(row)                                                             # 7. log
        if bar is not None:
            bar.update(1)
            bar.set_postfix(reward=f"{row['reward']:.2f}", kl=f"{row['kl_exact']:.3f}")
        if step % config.save_every == 0 or step == config.steps:
            save_step(run, step)                                                            # 8. save
        if online_eval is not None:  # evaluate the saved step into the online study
            evaluation.after_step(online_eval, run, step, progress)
    if bar is not None:
        bar.close()
    return close_session(run)


def warn_if_biased(config: TrainConfig) -> None:
    """KL in both places is unbiased only when the loss half has the reward half's exact strength
    and baseline: RLOO's leave-one-out mean and seq-mean-token-sum (docs/training.md)."""
    kl = config.kl
    if kl.placement == "both" and kl.active and (config.algorithm != "rloo"
                                                 or config.loss_aggregation != "seq-mean-token-sum"):
        warnings.warn(f"KL in both reward and loss is an unbiased reverse-KL gradient only with --algorithm rloo "
                      f"and --loss-aggregation seq-mean-token-sum; with {config.algorithm} and "
                      f"{config.loss_aggregation} it is biased (see `kleval gradcheck`)",
                      BiasedConfigurationWarning, stacklevel=2)


class _Clock:
    """Wall and CPU seconds of a step, with laps for its phases."""

    def __init__(self) -> None:
        self.start = self.last = time.time()
        self.cpu_start = time.process_time()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.time()
        self.laps[name] = now - self.last
        self.last = now


def _progress_bar(run: Session, progress: bool):
    """A progress bar over the run's steps on rank 0, or None."""
    if not (progress and run.ranks.is_main):
        return None
    from tqdm import tqdm

    return tqdm(initial=run.start_step, total=run.config.steps, desc=f"train {run.config.preset or 'custom'}",
                unit="step")


# -- 1-2. rollout and reward ------------------------------------------------------------------------
@dataclass
class Rollout:
    batch: RolloutBatch
    rewards: object  # [B] Task.reward of each response
    old_logprobs: object  # [B, T] sampling policy's log-probs (staleness > 0 only), else None
    loose_reward_rate: float | None  # "exact" tasks: share of rewarded answers that are not the gold string
    version: int = 0  # updates made by the policy that sampled the batch


def prompt_text(run: Session, problem) -> str:
    """The task's prompt; chat tasks are wrapped as one user turn, as the eval backends do."""
    text = run.task.prompt(problem)
    if run.task.chat and run.tokenizer.chat_template:
        return run.tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False,
                                                 add_generation_prompt=True)
    return text


def collect_rollout(run: Session, *, version: int = 0) -> Rollout:
    """Sample a batch from the current policy (which has made `version` updates) and grade it (each
    distinct answer graded once)."""
    import torch

    config = run.config
    per_rank = max(config.prompts_per_step // run.ranks.world_size, 1)
    chosen = [run.prompt_rng.choice(run.problems) for _ in range(per_rank)]
    prompts = [prompt_text(run, p) for p in chosen]
    sampling = dict(samples_per_prompt=config.samples_per_prompt, max_new_tokens=config.max_new_tokens,
                    temperature=config.temperature)
    if run.engine is not None:
        batch = run.engine.sample(run.tokenizer, prompts, seed=run.prompt_rng.randrange(2**31), **sampling)
    else:
        run.policy.eval()
        with sharding.gathered_for_sampling(run.policy):  # FSDP: ranks sample different lengths
            batch = sample(config.rollout_backend, run.policy, run.tokenizer, prompts, generator=run.sampler, **sampling)
        run.policy.train()
    memo = run.reward_memo  # Task.reward is deterministic
    graded = []
    for i, text in zip(batch.prompt_index, batch.texts):
        key = (chosen[i].id, text)
        if key not in memo:
            memo[key] = run.task.reward(chosen[i], text)
        graded.append(memo[key])
    rewards = torch.tensor(graded, dtype=torch.float32, device=batch.response_ids.device)  # [B]
    old_logprobs = None
    if config.staleness > 0:  # trained on later, by a changed policy: keep the sampling policy's log-probs
        old_logprobs = score_batch(run.policy_scorer, None, batch, run.ranks).logprobs
    loose = None
    if run.task.policy == "exact":  # a reward for anything but the gold string is a grader leak
        rewarded = [(chosen[i], text) for i, text, r in zip(batch.prompt_index, batch.texts, graded) if r > 0]
        loose = sum(text.strip() != p.gold for p, text in rewarded) / max(len(rewarded), 1)
    return Rollout(batch, rewards, old_logprobs, loose, version)


# -- 4. KL in the reward, advantages ---------------------------------------------------------------
def reward_advantages(config: TrainConfig, rollout: Rollout, scores, sampling_logprobs):
    """Per-token advantages [B, T] and shaped rewards [B] (task reward minus the reward-placed KL)."""
    mask = rollout.batch.response_mask.float()
    if config.recipe == "async":  # the paper's off-policy recipe: R - group mean, KL as a clamped sequence sum
        from kleval.train.async_recipe import async_advantages

        return async_advantages(rollout.rewards, sampling_logprobs, scores.ref_logprobs, mask, kl=config.kl,
                                samples_per_prompt=config.samples_per_prompt)
    penalty = None
    if config.kl.in_reward:
        penalty, _ = kl_terms(config.kl, sampling_logprobs - scores.ref_logprobs, mask)
    return compute_advantages(
        rollout.rewards, penalty, mask, beta=config.kl.beta if config.kl.in_reward else 0.0,
        samples_per_prompt=config.samples_per_prompt, algorithm=config.algorithm,
        token_level=config.kl.granularity == "token", scale_by_std=config.grpo_scale_by_std)


# -- 5-6. loss and optimizer step --------------------------------------------------------------------
def update_policy(run: Session, batch: RolloutBatch, scores, advantages, old_logprobs, step: int) -> dict:
    """One gradient update on the batch, micro-batch by micro-batch; returns its loss statistics.

    old_logprobs: the sampling policy's [B, T] log-probs when off-policy, None on-policy (then the
    ratio is pi / pi.detach(): 1 in value, the score function in gradient).
    """
    config, policy = run.config, run.policy
    mask = batch.response_mask.float()
    weights = LossWeights.for_batch(mask, config.loss_aggregation, max_length=config.max_new_tokens)
    if config.recipe == "async":  # each micro-batch divided by its own tokens (train/async_recipe.py)
        from kleval.train.async_recipe import micro_batch_weights

        weights = micro_batch_weights(mask, config.micro_batch_size)
    plan = micro_batches(batch, config.micro_batch_size)
    groups = agree_on_sharing([shared_prompt_group(rows) for _, rows in plan], run.ranks)
    split = bool(config.kl.in_loss and config.grad_norm_split_every and step % config.grad_norm_split_every == 0)
    run.optimizer.zero_grad(set_to_none=True)
    totals = {"loss": 0.0, "pg_loss": 0.0, "kl_loss": 0.0, "tokens": 0.0, "clipped": 0.0, "ratio_sum": 0.0,
              "ratio_max": 0.0}
    kl_grads = None
    for (index, rows), group in zip(plan, groups):
        logprobs = run.policy_scorer.token_logprobs(run.policy_scorer.states(rows, group), rows.response_ids)
        old = old_logprobs[index] if old_logprobs is not None else logprobs.detach()
        if config.recipe == "async":
            from kleval.train.async_recipe import async_loss

            terms = async_loss(logprobs, old, scores.ref_logprobs[index], advantages[index], mask[index],
                               kl=config.kl, ratio_cap=config.ratio_cap, weights=weights.rows(index))
        else:
            terms = compute_loss(logprobs, old, scores.ref_logprobs[index], advantages[index], mask[index],
                                 kl=config.kl, aggregation=config.loss_aggregation, clip_epsilon=config.clip_epsilon,
                                 max_length=config.max_new_tokens, weights=weights.rows(index))
        if split:
            kl_grads = backward_kl_apart(policy, terms, kl_grads)
        else:
            terms.total.backward()
        for key, value in (("loss", terms.total), ("pg_loss", terms.policy), ("kl_loss", terms.kl)):
            totals[key] += float(value.detach())
        totals["tokens"] += terms.tokens
        totals["clipped"] += terms.clipped_tokens
        totals["ratio_sum"] += terms.ratio_sum
        totals["ratio_max"] = max(totals["ratio_max"], terms.ratio_max)
    norms = reduce_gradients(run, kl_grads)
    norms["grad_norm"] = sharding.clip_gradients(policy, config.max_grad_norm)
    run.optimizer.step()
    tokens = max(totals["tokens"], 1.0)
    return {"loss": totals["loss"], "pg_loss": totals["pg_loss"], "kl_loss": totals["kl_loss"], **norms,
            "importance_weight_mean": totals["ratio_sum"] / tokens if totals["tokens"] else 1.0,
            "importance_weight_max": totals["ratio_max"] if totals["tokens"] else 1.0,
            "clip_fraction": totals["clipped"] / tokens}


def backward_kl_apart(policy, terms, kl_grads):
    """Backward of the KL term and of the policy term separately, the KL part accumulated in
    kl_grads (returned), the policy part in .grad: their norms are logged apart."""
    terms.kl.backward(retain_graph=True)
    parameters = list(policy.parameters())
    grads = [p.grad for p in parameters]
    kl_grads = grads if kl_grads is None else [
        a if g is None else g if a is None else a + g for a, g in zip(kl_grads, grads)]
    for p in parameters:
        p.grad = None
    terms.policy.backward()
    return kl_grads


def reduce_gradients(run: Session, kl_grads) -> dict:
    """Average gradients over ranks; with the KL part apart, add it back and return both norms."""
    parameters = list(run.policy.parameters())
    sharding.reduce_gradients(run.policy, run.ranks)  # FSDP: already reduce-scattered in backward
    if kl_grads is None:
        return {}
    kl_grads = sharding.reduce_gradient_list(run.policy, kl_grads, run.ranks)
    norms = {"grad_norm_kl": sharding.gradient_norm(kl_grads),
             "grad_norm_pg": sharding.gradient_norm([p.grad for p in parameters])}
    for p, g in zip(parameters, kl_grads):
        if g is not None:
            p.grad = g if p.grad is None else p.grad + g
    return norms


def sync_engine(run: Session, step: int) -> None:
    """vLLM must sample from the policy just trained: push the weights, check log-probs now and then."""
    if run.engine is None:
        return
    run.engine.push_weights(sharding.full_parameters(run.policy))
    if (step - 1) % run.config.save_every == 0:  # steps 1, 1 + save_every, ... (also when save_every is 1)
        run.engine.check_logprobs(run.policy_scorer, run.tokenizer, prompt_text(run, run.problems[0]))


# -- 7. log ------------------------------------------------------------------------------------------
EPOCH_KEYS = ("loss", "pg_loss", "kl_loss", "grad_norm", "grad_norm_kl", "grad_norm_pg", "importance_weight_mean",
              "importance_weight_max", "clip_fraction")


def log_row(config: TrainConfig, step: int, rollout: Rollout, scores, shaped_rewards, updates: list[dict],
            clock: _Clock, started: float) -> dict:
    """One train_log.jsonl row. The loss terms are the first epoch's (the policy the KL statistics
    describe); with ppo_epochs > 1 each later epoch k adds `epoch{k}_<key>` for its own terms."""
    mask = rollout.batch.response_mask.float()
    rewards, lengths = rollout.rewards, mask.sum(-1)
    row = {
        "step": step,
        "reward": float(rewards.mean()),
        "accuracy": float((rewards >= 1.0).float().mean()),
        "shaped_reward": float(shaped_rewards.mean()),
        "rewarded_not_gold_string": rollout.loose_reward_rate,
        "response_length": float(lengths.mean()),
        "truncation_rate": float(rollout.batch.truncated.float().mean()),
        **kl_statistics(scores, mask),
        **updates[0],
        "kl_beta_effective_per_sequence": effective_beta(config, float(lengths.mean())),
    }
    if len(updates) > 1:
        row["loss_terms_epoch"] = 1
        for epoch, update in enumerate(updates[1:], start=2):
            row.update({f"epoch{epoch}_{key}": update[key] for key in EPOCH_KEYS if key in update})
    return {**row, **clock.laps, "step_seconds": time.time() - clock.start,
            "step_cpu_seconds": time.process_time() - clock.cpu_start,  # robust to other load on the machine
            "time": time.time() - started}


def effective_beta(config: TrainConfig, mean_length: float) -> float:
    """Strength of the KL penalty per response relative to its policy-gradient term (see
    klconfig.effective_sequence_beta).

    Reward: beta. Loss: beta for per-token terms; sequence-level terms scaled by the aggregation.
    Both: the two halves are one estimate of one gradient (unbiased at strength beta with RLOO and
    seq-mean-token-sum), so beta, not 2 beta.
    """
    from kleval.klconfig import effective_sequence_beta

    if config.kl.in_reward:
        return config.kl.beta
    length = config.max_new_tokens if config.loss_aggregation == "seq-sum-norm" else mean_length
    return effective_sequence_beta(config.kl, config.loss_aggregation, length)
