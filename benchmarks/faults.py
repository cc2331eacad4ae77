"""The long fault campaign (issue 14): kills, bad inputs, hostile answers under load, a full disk,
a misbehaving server; prints the figures docs/reliability.md publishes and writes them as JSON.

    python benchmarks/faults.py                      # about 10 minutes on 2 busy cores
    python benchmarks/faults.py --scale 2 --json reports/faults.json

Uses the helpers of tests/faults (stub OpenAI server, kill harness, bad-input catalog, hostile
answers). Every kill is a SIGKILL at a random moment (seeded), followed by the same command;
"samples lost" counts rows of the uninterrupted study missing from the resumed one.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests" / "faults")]

from bad_inputs import BUILDERS, DEFECTS
from hostile_answers import hostile_completions
from killing import (files_fingerprint, kill_at_random, lock_is_free, run_to_end, study_fingerprint,
                     train_fingerprint)
from stub_openai import StubOpenAI


def _rows(fingerprint: dict) -> set[tuple[str, str]]:
    return {(name, row) for name, rows in fingerprint.items() if isinstance(rows, list) for row in rows}


def eval_argv(model: Path, out: Path, data_dir: Path) -> list[str]:
    return ["eval", "--backend", "openai", "--checkpoints", str(model), "--tokenizer", "tok", "--tasks", "gsm8k,math500",
            "--limit", "12", "--n", "4", "--k", "1,4", "--chunk-size", "2", "--out", str(out), "--data-dir", str(data_dir),
            "--verify-workers", "1", "--no-progress"]


def campaign_kills(work: Path, data_dir: Path, scale: float, rng: random.Random) -> dict:
    results = {}
    model = work / "run" / "served"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"")
    with StubOpenAI(length=6000, long_answers=True, delay=0.1) as server:
        env = {"OPENAI_BASE_URL": server.base_url}
        clean = work / "clean"
        started = time.monotonic()
        run_to_end(eval_argv(model, clean, data_dir), env=env)
        seconds = time.monotonic() - started
        killed = work / "killed"
        report = kill_at_random(eval_argv(model, killed, data_dir), kills=round(12 * scale), window=(0.3, seconds),
                                rng=rng, env=env)
        run_to_end(eval_argv(model, killed, data_dir), env=env)
        expected, got = study_fingerprint(clean), study_fingerprint(killed)
        results["eval"] = {"kills": report.kills, "finished_before_kill": report.finished_early,
                           "identical": expected == got, "samples_lost": len(_rows(expected) - _rows(got)),
                           "rows_duplicated": sum(len(v) for v in got.values() if isinstance(v, list))
                           - sum(len(v) for v in expected.values() if isinstance(v, list)),
                           "lock_free": lock_is_free(killed), "lingering_workers": report.lingering_workers,
                           "clean_run_s": round(seconds, 1)}
        print("eval", results["eval"], flush=True)

    rescored = work / "rescored"
    shutil.copytree(clean, rescored)
    started = time.monotonic()
    run_to_end(["rescore", str(rescored), "--workers", "1"])
    seconds = time.monotonic() - started
    study = work / "rescore_killed"
    shutil.copytree(clean, study)
    report = kill_at_random(["rescore", str(study), "--workers", "1"], kills=round(6 * scale), window=(0.3, seconds), rng=rng)
    run_to_end(["rescore", str(study), "--workers", "1"])
    results["rescore"] = {"kills": report.kills, "finished_before_kill": report.finished_early,
                          "identical": study_fingerprint(study) == study_fingerprint(rescored), "lock_free": lock_is_free(study),
                          "lingering_workers": report.lingering_workers}
    print("rescore", results["rescore"], flush=True)

    argv = ["report", str(rescored), "--resamples", "200"]
    started = time.monotonic()
    run_to_end(argv)
    seconds = time.monotonic() - started
    expected_files = files_fingerprint(rescored / "report", ("*.md", "*.tex", "*.html", "*.png"))
    shutil.rmtree(rescored / "report")
    report = kill_at_random(argv, kills=round(6 * scale), window=(0.5, seconds), rng=rng)
    run_to_end(argv)
    results["report"] = {"kills": report.kills, "finished_before_kill": report.finished_early,
                         "identical": files_fingerprint(rescored / "report", ("*.md", "*.tex", "*.html", "*.png")) == expected_files}
    print("report", results["report"], flush=True)

    argv = ["train", "--tiny", "--steps", "4", "--save-every", "1", "--prompts-per-step", "2", "--samples-per-prompt", "2",
            "--max-new-tokens", "8", "--no-progress"]
    started = time.monotonic()
    run_to_end([*argv, "--out", str(work / "train_clean")])
    seconds = time.monotonic() - started
    report = kill_at_random([*argv, "--out", str(work / "train_killed")], kills=round(4 * scale),
                            window=(seconds * 0.4, seconds), rng=rng)
    run_to_end([*argv, "--out", str(work / "train_killed")])
    results["train"] = {"kills": report.kills, "finished_before_kill": report.finished_early,
                        "identical": train_fingerprint(work / "train_killed") == train_fingerprint(work / "train_clean"),
                        "lock_free": lock_is_free(work / "train_killed")}
    print("train", results["train"], flush=True)
    return results


FLAGS = [("--temperature", "-1"), ("--n", "0"), ("--top-p", "0"), ("--max-tokens", "0"), ("--verify-timeout", "0"),
         ("--verify-workers", "-1"), ("--chunk-size", "0"), ("--limit", "0"), ("--k", "0"), ("--temperature", "nan")]


def campaign_bad_inputs(work: Path) -> dict:
    from kleval.cli import main

    tried = one_line = 0
    failures = []
    cases = [BUILDERS[c](work / c / d, d) for c in BUILDERS for d in DEFECTS]
    argvs = [(case.argv, case.env, case.may_succeed) for case in cases]
    argvs += [(("eval", "--checkpoints", str(work), "--tasks", "gsm8k", "--out", str(work / "s"), f, v), (), False) for f, v in FLAGS]
    argvs += [(("report", str(work), "--resamples", "0"), (), False), (("rescore", str(work), "--workers", "0"), (), False)]
    for argv, env, may_succeed in argvs:
        tried += 1
        os.environ.update(dict(env))
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = main(list(argv))
        except SystemExit as exc:
            code = exc.code
        except Exception as exc:  # a traceback: the probe failed
            code = f"{type(exc).__name__}"
        errors = [line for line in err.getvalue().splitlines() if "error" in line.lower()]
        if (code == 2 and len(errors) == 1) or (may_succeed and code == 0):
            one_line += 1
        else:
            failures.append((argv[:2], code))
    return {"tried": tried, "one_line_exit_2": one_line, "failures": failures}


def campaign_load() -> dict:
    from kleval.verify import VerifierPool, VerifyItem

    items = [VerifyItem("3", c, "math", p) for p in ("default", "gsm8k", "exact") for c in hostile_completions()]

    def grade():
        with VerifierPool(workers=2, timeout_s=10.0) as pool:
            started = time.monotonic()
            verdicts = pool.map(items)
            return verdicts, time.monotonic() - started, pool.stats

    idle, idle_s, idle_stats = grade()
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        loaded, loaded_s, stats = grade()
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    same = sum(a.to_dict() == b.to_dict() for a, b in zip(idle, loaded))
    # How late does the limit fire on a saturated machine? Items that sleep 60 s under a 1 s limit.
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        with VerifierPool(workers=2, timeout_s=1.0, verify_fn="pool_hooks:slow_verify") as pool:
            hung = pool.map([VerifyItem("60", f"hang{i}") for i in range(8)])
            lateness = pool.stats.kill_lateness_s
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    return {"items": len(items), "identical_verdicts": same, "timeouts_idle": idle_stats.timeouts,
            "timeouts_loaded": stats.timeouts, "idle_s": round(idle_s, 1), "loaded_s": round(loaded_s, 1),
            "burners": len(burners), "hung_items_timed_out": sum(v.status.value == "timeout" for v in hung),
            "kill_lateness_max_s": round(max(lateness), 3), "kill_lateness_median_s": round(sorted(lateness)[len(lateness) // 2], 3)}


def campaign_server(work: Path, data_dir: Path) -> dict:
    from faultkit import run_kleval

    secret = "sk-benchmark-SECRET"
    model = work / "srv" / "served"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"")
    config = work / "srv.toml"
    config.write_text(f'backend_options = {{api_key = "{secret}", timeout = 1, max_retries = 2, backoff = 0.05}}\n')
    out = {}
    for mode in ("stall", "500", "truncate", "drop"):
        with StubOpenAI(mode=mode) as server:
            started = time.monotonic()
            done = run_kleval("eval", "--config", config, "--backend", "openai", "--checkpoints", model, "--tokenizer", "tok",
                              "--tasks", "gsm8k", "--limit", "2", "--out", work / f"srv_{mode}", "--data-dir", data_dir,
                              "--no-progress", timeout=300, OPENAI_BASE_URL=server.base_url)
            leaked = secret in done.stderr + done.stdout or any(
                secret.encode() in p.read_bytes() for p in (work / f"srv_{mode}").rglob("*") if p.is_file())
            out[mode] = {"exit": done.returncode, "seconds": round(time.monotonic() - started, 1),
                         "requests": server.requests, "key_leaked": leaked,
                         "error": done.stderr.strip().splitlines()[-1][:160] if done.stderr.strip() else ""}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the number of kills (default 1: 28 kills)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    work = Path(tempfile.mkdtemp(prefix="kleval-faults-"))
    try:
        figures = {"kills": campaign_kills(work / "kills", Path(args.data_dir), args.scale, random.Random(args.seed))}
        figures["bad_inputs"] = campaign_bad_inputs(work / "bad")
        print("bad inputs", figures["bad_inputs"], flush=True)
        figures["hostile_under_load"] = campaign_load()
        print("hostile under load", figures["hostile_under_load"], flush=True)
        figures["server"] = campaign_server(work / "server", Path(args.data_dir))
        print("server", figures["server"], flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    kills = figures["kills"]
    total = sum(v["kills"] for v in kills.values())
    by_command = ", ".join(f"{name} {v['kills']}" for name, v in kills.items())
    print(f"\nfaults injected: {total} kill -9 ({by_command}); "
          f"all resumed identical: {all(v['identical'] for v in kills.values())}; samples lost: {kills['eval']['samples_lost']}")
    print(f"bad inputs tried: {figures['bad_inputs']['tried']}, one-line exit 2: {figures['bad_inputs']['one_line_exit_2']}")
    load = figures["hostile_under_load"]
    print(f"hostile items graded under load: {load['items']}, identical to idle: {load['identical_verdicts']}; "
          f"limit kills under load: {load['hung_items_timed_out']}, late by at most {load['kill_lateness_max_s']} s")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
