"""The CPU tiny mode: the measured recipe as defaults, and one call per training run for `make demo`.

    from kleval.train.tiny import ensure_base, train_tiny
    base = ensure_base()                          # the committed base, or build it (about 1-3 min)
    train_tiny("k3-loss", "runs/k3-loss-s0", steps=200, seed=0, base_dir=base)

Two single-threaded runs side by side use both cores of a 2-core machine best.
"""
from __future__ import annotations

from pathlib import Path

from kleval.klconfig import preset
from kleval.resources import bundled_root
from kleval.train.config import TrainConfig

COMMITTED_BASE = bundled_root() / "assets" / "tiny-arith-base"  # repo assets/ or the wheel's copy
DEFAULT_BETA = 1.0  # the recipe's beta (the same KL-versus-reward trade-off in reward and loss placement)


def tiny_config(preset_name: str, *, base_dir: str | Path, beta: float = DEFAULT_BETA, steps: int = 300,
                seed: int = 0, **overrides) -> TrainConfig:
    """The recipe's TrainConfig for one KL preset (RLOO, 32 prompts x 8 samples, Adam 3e-4)."""
    return TrainConfig(
        model=str(base_dir),
        task="arith_add_train",
        kl=preset(preset_name, beta=beta),
        preset=preset_name,
        algorithm="rloo",
        loss_aggregation="seq-mean-token-sum",
        prompts_per_step=32,
        samples_per_prompt=8,
        max_new_tokens=5,
        learning_rate=3e-4,
        max_grad_norm=1.0,
        steps=steps,
        save_every=max(steps // 3, 1),
        seed=seed,
        threads=1,
        rollout_backend="tiny",
        attention="eager",
        micro_batch_size=256,  # the whole batch in one forward: 256 rows x ~10 tokens x 17 logits is small
    ).with_overrides(**overrides)


def ensure_base(base_dir: str | Path | None = None, *, steps: int = 2000, threads: int | None = None,
                progress: bool = False, committed: Path = COMMITTED_BASE, build=None) -> Path:
    """Return a ready base model: base_dir if it holds one, the committed base, or a fresh build.

    committed / build: the committed directory and its builder `build(out_dir, steps=, threads=,
    progress=)` (default: the arithmetic base, kleval.train.base.build_tiny_base).
    """
    if base_dir is None:
        if (committed / "config.json").exists():
            return committed
        base_dir = committed
    base_dir = Path(base_dir)
    if (base_dir / "config.json").exists() and (base_dir / "model.safetensors").exists():
        return base_dir
    if build is None:
        from kleval.train.base import build_tiny_base as build

    return build(base_dir, steps=steps, threads=threads, progress=progress)


def train_tiny(preset_name: str, out_dir: str | Path, *, steps: int = 300, seed: int = 0,
               base_dir: str | Path | None = None, beta: float = DEFAULT_BETA, progress: bool = False,
               **overrides) -> Path:
    """Train one tiny run of a KL preset into out_dir; returns the last global_step_N directory."""
    from kleval.train.loop import train

    base = ensure_base(base_dir)
    config = tiny_config(preset_name, base_dir=base, beta=beta, steps=steps, seed=seed, **overrides)
    return train(config, out_dir, progress=progress)


def _sweep_worker(job: tuple) -> tuple[str, int, str, float]:
    import time

    from kleval.cli import silence_progress_bars

    # The sweep's one bar counts every run's steps; a worker's library bars (transformers' "Loading
    # weights", "Writing model shards" at each save) would cut it into fragments. This process is ours.
    silence_progress_bars()
    preset_name, seed, out_dir, steps, base_dir, beta = job
    started = time.time()
    train_tiny(preset_name, out_dir, steps=steps, seed=seed, base_dir=base_dir, beta=beta)
    return preset_name, seed, str(out_dir), time.time() - started


def train_sweep(presets, seeds, out_root: str | Path, *, steps: int = 300, base_dir: str | Path | None = None,
                beta: float = DEFAULT_BETA, workers: int = 2, progress: bool = False) -> list[dict]:
    """Train every preset x seed into out_root/<preset>-s<seed>/, `workers` single-threaded runs at once.

    Returns one dict per run: preset, seed, run_dir, seconds. Runs already complete are resumed
    (and so finish at once). With progress, one bar counts the steps of all runs (read from their
    train_log.jsonl files, so the workers need no channel back).
    """
    import multiprocessing

    base = ensure_base(base_dir)
    jobs = [(name, seed, str(Path(out_root) / f"{name}-s{seed}"), steps, str(base), beta)
            for seed in seeds for name in presets]
    with multiprocessing.get_context("spawn").Pool(max(1, workers)) as pool:
        pending = pool.map_async(_sweep_worker, jobs, chunksize=1)
        if progress:
            _show_sweep_progress(pending, [Path(job[2]) for job in jobs], steps)
        results = pending.get()
    return [{"preset": p, "seed": s, "run_dir": d, "seconds": t} for p, s, d, t in results]


def _show_sweep_progress(pending, run_dirs: list[Path], steps: int) -> None:
    """A bar over all runs' steps until `pending` (the pool's result) is ready."""
    from tqdm import tqdm

    def done() -> int:
        logs = (d / "train_log.jsonl" for d in run_dirs)
        return sum(min(steps, p.read_bytes().count(b"\n")) for p in logs if p.exists())

    with tqdm(total=steps * len(run_dirs), desc=f"RL {len(run_dirs)} runs", unit="step", dynamic_ncols=True) as bar:
        while not pending.ready():
            pending.wait(1.0)
            bar.update(done() - bar.n)
        bar.update(done() - bar.n)
