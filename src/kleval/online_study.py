"""Accuracy against training step on the CPU tiny task: `kleval demo --study online`.

The committed example of online evaluation (`kleval train --eval-every N`, train/online_eval.py):
a few presets are trained one after another from the committed tiny base, each evaluating its
policy every `every` steps on arith_add (ID) and arith_sub (OOD, subtraction: learned only in the
supervised phase) into ONE shared study directory, the base model once. Then the ordinary report
of that study (`accuracy_vs_step.{png,pdf}`: pass@1 against step, the base model as the reference
line) and `accuracy_by_step.md` / `.csv`: pass@1 of every evaluated step, one column per preset and
task. Runs go one at a time because they share the study (its runner resumes and adds; two writers
would not). Deterministic like the other CPU studies (seeded, pinned threads, no time stamps).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

ONLINE_PRESETS = ("none", "k1-reward", "k1-loss")
ONLINE_TASKS = ("arith_add", "arith_sub")


@dataclass(frozen=True)
class OnlineStudySettings:
    out: Path = Path("reports/online_eval")
    base: Path | None = None  # None: the committed assets/tiny-arith-base
    presets: tuple[str, ...] = ONLINE_PRESETS
    seeds: tuple[int, ...] = (0,)
    steps: int = 300
    beta: float = 1.0
    every: int = 25
    eval_limit: int = 100  # problems per task
    n: int = 4  # samples per problem at temperature 1
    threads: int = 1


def run_online_study(settings: OnlineStudySettings = OnlineStudySettings(), *, progress: bool = True) -> Path:
    """Train with online evaluation, report; returns accuracy_by_step.md."""
    from kleval.tiny_studies import pinned_torch

    with pinned_torch(settings.threads):
        return _run(settings, progress)


def _run(settings: OnlineStudySettings, progress: bool) -> Path:
    from kleval.report import build_report
    from kleval.tiny_studies import drop_volatile_header_fields, relative_to_cwd, retire_stale_study
    from kleval.train.loop import train
    from kleval.train.online_eval import OnlineEval
    from kleval.train.tiny import ensure_base, tiny_config

    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    base = str(relative_to_cwd(ensure_base(settings.base, progress=progress)))
    study = out / "study"
    if retire_stale_study(study):  # its evaluations happen during training: the runs start afresh too
        import shutil

        shutil.rmtree(out / "runs", ignore_errors=True)
    online = OnlineEval(every=settings.every, tasks=ONLINE_TASKS, out=study, n=settings.n, limit=settings.eval_limit,
                        max_tokens=8, seed=0, backend_options={"device": "cpu"})
    runs = [(p, seed) for seed in settings.seeds for p in settings.presets]
    print(f"online study: {len(runs)} runs of {settings.steps} steps, beta {settings.beta:g}, evaluated "
          f"every {settings.every} steps on {', '.join(ONLINE_TASKS)} ({settings.eval_limit} problems x "
          f"{settings.n} samples)", flush=True)
    for preset_name, seed in runs:
        config = tiny_config(preset_name, base_dir=base, beta=settings.beta, steps=settings.steps, seed=seed,
                             threads=settings.threads)
        train(config, out / "runs" / f"{preset_name}-s{seed}", progress=progress, online_eval=online)
    drop_volatile_header_fields(study)
    build_report(study, out, k=1, reference="none" if "none" in settings.presets else None)
    return write_accuracy_by_step(study, out, settings)


def write_accuracy_by_step(study: Path, out: Path, settings: OnlineStudySettings) -> Path:
    """accuracy_by_step.csv / .md: pass@1 (%) of every evaluated step, one column per preset x task
    (mean over seeds); step 0 is the base model, where every run starts."""
    import pandas as pd

    results = pd.read_csv(study / "results.csv")
    runs = {f"{p}-s{seed}": p for seed in settings.seeds for p in settings.presets}
    trained = results[results["run"].isin(list(runs))].assign(preset=lambda f: f["run"].map(runs))
    table = trained.pivot_table(index="step", columns=["preset", "task"], values="pass@1", aggfunc="mean")
    table.index = table.index.astype(int)
    base = results[results["run"].isna()].groupby("task")["pass@1"].mean()
    for preset_name in settings.presets:
        for task in ONLINE_TASKS:
            table.loc[0, (preset_name, task)] = base.get(task, float("nan"))
    table = 100 * table.sort_index().reindex(columns=[(p, t) for p in settings.presets for t in ONLINE_TASKS])
    columns = [f"{p} {task}" for p, task in table.columns]
    rows = [[str(step), *(f"{v:.1f}" for v in row)] for step, row in table.iterrows()]
    with open(out / "accuracy_by_step.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["step", *columns])
        writer.writerows(rows)
    lines = [(f"pass@1 (%) against training step: {', '.join(settings.presets)} at beta {settings.beta:g}, "
              f"seed(s) {', '.join(map(str, settings.seeds))} (mean), evaluated every {settings.every} steps during "
              f"training on the first {settings.eval_limit} problems of each task, {settings.n} samples each at "
              f"temperature 1 (arith_add: ID, arith_sub: OOD). Step 0: the base model."), "",
             "| step | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    path = out / "accuracy_by_step.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
