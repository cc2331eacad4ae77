"""Seconds per RL step: kleval's loop vs TRL's GRPOTrainer on the same tiny model, batch and group size.

Both run K3 in the loss (TRL's GRPO KL; kleval preset k3-loss) with beta 1, 32 prompts x 8
samples, at most 5 new tokens, Adam 3e-4, one torch thread each, one after the other in this
process. Prints the median seconds per step of each and the ratio (target: kleval <= 0.5 x TRL).

    .venv/bin/python benchmarks/train_vs_trl.py [--steps 20] [--base assets/tiny-arith-base]

Needs `trl` (pip install trl; it leaves torch and transformers as they are).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def kleval_seconds_per_step(base: Path, steps: int, out: Path) -> float:
    from kleval.train.diagnostics import read_log
    from kleval.train.loop import train
    from kleval.train.tiny import tiny_config

    train(tiny_config("k3-loss", base_dir=base, steps=steps, save_every=10**6, beta=1.0,
                      grad_norm_split_every=0), out, progress=False)
    rows = read_log(out)
    return statistics.median(r["step_seconds"] for r in rows[2:])


def trl_seconds_per_step(base: Path, steps: int, out: Path) -> float:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from kleval.tasks import load_task

    task = load_task("arith_add_train")
    problems = task.problems()
    by_prompt = {task.prompt(p): p for p in problems}
    dataset = Dataset.from_list([{"prompt": task.prompt(p)} for p in problems])

    def reward(prompts, completions, **_):  # the same grader as kleval's loop: Task.reward
        return [task.reward(by_prompt[p], c) for p, c in zip(prompts, completions)]

    class StepTimer(TrainerCallback):
        def __init__(self):
            self.times = []

        def on_step_begin(self, args, state, control, **kw):
            self.started = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            self.times.append(time.perf_counter() - self.started)

    config = GRPOConfig(
        output_dir=str(out), per_device_train_batch_size=256, num_generations=8, max_completion_length=5,
        beta=1.0, use_bias_correction_kl=False, loss_type="dr_grpo", scale_rewards="none", learning_rate=3e-4,
        max_grad_norm=1.0, max_steps=steps, temperature=1.0, top_p=1.0, use_cpu=True, report_to=[],
        save_strategy="no", logging_steps=10**6, num_iterations=1, gradient_accumulation_steps=1,
        dataloader_num_workers=0, seed=0, disable_tqdm=True,
    )
    timer = StepTimer()
    trainer = GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(base), reward_funcs=reward, args=config,
                          train_dataset=dataset, processing_class=AutoTokenizer.from_pretrained(base),
                          callbacks=[timer])
    trainer.train()
    return statistics.median(timer.times[2:])


def main() -> None:
    import torch

    from kleval.train.tiny import ensure_base

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--base", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    base = ensure_base(args.base)
    with tempfile.TemporaryDirectory() as tmp:
        ours = kleval_seconds_per_step(base, args.steps, Path(tmp) / "kleval")
        theirs = trl_seconds_per_step(base, args.steps, Path(tmp) / "trl")
    print(f"kleval  {ours:.3f} s/step (median of steps 3-{args.steps})")
    print(f"TRL     {theirs:.3f} s/step (GRPOTrainer, same model, 32 prompts x 8, K3 in loss)")
    print(f"ratio   kleval / TRL = {ours / theirs:.2f}  (target <= 0.5)")


if __name__ == "__main__":
    main()
