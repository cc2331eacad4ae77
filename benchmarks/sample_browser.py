"""How the report's sample browser scales: a synthetic study of tens of thousands of samples.

    python benchmarks/sample_browser.py [--checkpoints 24] [--problems 500] [--n 4] [--chars 1500]

Writes a study (fake completions of --chars characters), runs `kleval report`, then opens
index.html in headless Chromium (selenium + chromedriver, as in the tests) and times: the page to
its first count (all configurations at their last step: every data file of the first task), a
status filter change, a task change (every file of the other task), one configuration, and
side by side. Prints the sizes
of index.html and of the data files side by side, and the times.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def build_study(root: Path, checkpoints: int, problems: int, n: int, chars: int) -> Path:
    from report.fake_study import kl_checkpoint, write_study

    presets = ["none", "k1-reward", "k1-loss", "k3-reward", "k3-loss", "k3-both"]
    ckpts = []
    for i in range(checkpoints):
        preset, seed = presets[i % len(presets)], i // len(presets)
        ckpts.append(kl_checkpoint(preset, seed, 100, {"add": 0.6, "sub": 0.4}))
    study = write_study(root / "study", ckpts, {"add": "id", "sub": "ood"}, num_problems=problems,
                        sampling={"n": n})
    filler = ("Let us think step by step. " * (chars // 27 + 1))[:chars]
    for scores in (study / "scores").glob("*/*.jsonl"):
        rows = [json.loads(line) for line in scores.read_text().splitlines()]
        target = study / "samples" / scores.parent.name / scores.name
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w") as handle:
            for row in rows:
                handle.write(json.dumps({"problem_id": row["problem_id"], "sample_index": row["sample_index"],
                                         "prompt": "What is 2+2? " * 20, "gold": "gold", "kind": "math",
                                         "num_tokens": chars // 4, "finish_reason": "stop",
                                         "completion": f"{filler} \\boxed{{{row['extracted']}}}"}) + "\n")
    return study


def timed_browser(page: Path) -> dict[str, float]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import Select

    from kleval.report.screenshot import find_chromium

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.binary_location = find_chromium()
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)

    def count() -> str:
        return driver.find_element("id", "sb-count").text

    def until_changed(before: str) -> None:
        while count() in ("", "loading...", before):
            time.sleep(0.01)

    times = {}
    try:
        start = time.perf_counter()
        driver.get(page.resolve().as_uri())
        until_changed("")
        times["open page (loads every file of the first task)"] = time.perf_counter() - start
        for label, element, value in (("status filter (data loaded)", "sb-status", "incorrect"),
                                      ("other task (loads every file of that task)", "sb-task", "sub"),
                                      ("one configuration (data loaded)", "sb-config", "k3-loss"),
                                      ("side by side with another configuration", "sb-compare", "k1-reward")):
            before = count()
            start = time.perf_counter()
            Select(driver.find_element("id", element)).select_by_value(value)
            until_changed(before)
            times[label] = time.perf_counter() - start
    finally:
        driver.quit()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", type=int, default=24)
    parser.add_argument("--problems", type=int, default=500)
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--chars", type=int, default=1500, help="characters per completion")
    args = parser.parse_args()

    from kleval.cli import main as kleval

    root = Path(tempfile.mkdtemp(prefix="kleval-browser-bench-"))
    try:
        study = build_study(root, args.checkpoints, args.problems, args.n, args.chars)
        samples = args.checkpoints * 2 * args.problems * args.n
        start = time.perf_counter()
        kleval(["report", str(study), "--out", str(root / "out"), "--resamples", "100"])
        report_s = time.perf_counter() - start
        data = list((root / "out" / "samples-browser").rglob("*.js"))
        data_mb = sum(p.stat().st_size for p in data) / 1e6
        page_kb = (root / "out" / "index.html").stat().st_size / 1e3
        print(f"\nstudy: {args.checkpoints} checkpoints x 2 tasks x {args.problems} problems x n={args.n} = "
              f"{samples} samples of ~{args.chars} characters")
        print(f"kleval report (table, figures, browser data): {report_s:.1f} s")
        print(f"index.html {page_kb:.0f} kB | data files: {len(data)} files, {data_mb:.1f} MB total, "
              f"largest {max(p.stat().st_size for p in data) / 1e6:.2f} MB (one checkpoint x task)")
        if shutil.which("chromedriver"):
            for label, seconds in timed_browser(root / "out" / "index.html").items():
                print(f"  {label:<50} {seconds * 1000:8.0f} ms")
        else:
            print("chromedriver not installed: browser timings skipped (make browser)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
