"""The study page's sample browser, driven in headless Chromium: filters change the counts exactly
as the logs say, a problem opens with its completions and highlighted answers, two configurations
sit side by side, anchors open a problem, and nothing from the data is ever run as HTML/script."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from kleval.cli import main
from kleval.report.samples import problem_anchor, split_answer, to_script_json
from kleval.report.screenshot import find_chromium
from report.fake_study import FakeCheckpoint, kl_checkpoint, write_study

TASKS = {"add": "id", "sub": "ood"}
NASTY_PROMPT = "Compute <script>window.pwned = 1</script> $\\frac{1}{$ & </pre> please"
ODD_RUN = "<i>odd&run"  # a run (so a label and a configuration) whose name is markup


def _checkpoints():
    out = [FakeCheckpoint(ODD_RUN, 0, accuracy={"add": 0.5, "sub": 0.5})]
    for preset, acc in (("k1-reward", 0.8), ("k3-loss", 0.3)):
        for step in (10, 20):
            out.append(kl_checkpoint(preset, 0, step, {"add": acc, "sub": acc}))
    return out


def _add_completions(study: Path) -> None:
    """Samples logs (the fake study has only verdicts), with markup in prompts and completions,
    and a few other statuses: no_answer, timeout, and truncated samples."""
    for scores in sorted((study / "scores").glob("*/*.jsonl")):
        rows = [json.loads(line) for line in scores.read_text().splitlines()]
        samples = []
        for k, row in enumerate(rows):
            if k % 7 == 3:
                row.update(status="no_answer", correct=False, extracted=None)
            elif k % 11 == 5:
                row.update(status="timeout", correct=False, extracted=None)
            answer = row["extracted"] or "nothing"
            samples.append({"problem_id": row["problem_id"], "sample_index": row["sample_index"],
                            "prompt": NASTY_PROMPT, "gold": "gold", "kind": "math", "num_tokens": 12,
                            "prompt_tokens": 9, "finish_reason": "length" if k % 5 == 0 else "stop",
                            "completion": f"<b>step</b> <script>window.pwned = 2</script> so \\boxed{{{answer}}}"})
        scores.write_text("".join(json.dumps(r) + "\n" for r in rows))
        target = study / "samples" / scores.parent.name / scores.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(json.dumps(s) + "\n" for s in samples))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    study = write_study(root / "study", _checkpoints(), TASKS, num_problems=30)
    _add_completions(study)
    assert main(["report", str(study), "--out", str(root / "out"), "--resamples", "100"]) == 0
    return study, root / "out"


def _expected(study: Path, labels: list[str], task: str, status: str | None) -> tuple[int, int]:
    """(problem x checkpoint pairs with a matching sample, matching samples), from the logs."""
    pairs = samples = 0
    for label in labels:
        scores = [json.loads(x) for x in (study / "scores" / label / f"{task}.jsonl").read_text().splitlines()]
        logged = [json.loads(x) for x in (study / "samples" / label / f"{task}.jsonl").read_text().splitlines()]
        by_problem: dict[str, int] = {}
        for verdict, sample in zip(scores, logged):
            hit = status is None or verdict["status"] == status or (
                status == "truncated" and sample["finish_reason"] == "length")
            by_problem[verdict["problem_id"]] = by_problem.get(verdict["problem_id"], 0) + hit
        pairs += sum(1 for v in by_problem.values() if v)
        samples += sum(by_problem.values())
    return pairs, samples


def test_data_files_escape_markup_and_answers_split():
    assert "<" not in to_script_json({"t": "</script><!--"}) and "\\u003c/script" in to_script_json("</script>")
    assert split_answer("x = 5, so \\boxed{5}", "5") == ["x = 5, so \\boxed{", "5", "}"]
    assert split_answer("no answer here", "7") == ["no answer here"]
    assert problem_anchor("math500", "test/algebra/1.json", "k3__step20") == \
        "#problem=math500/test%2Falgebra%2F1.json&checkpoint=k3__step20"


def test_one_data_file_per_checkpoint_and_task(report):
    study, out = report
    files = sorted(p.relative_to(out / "samples-browser") for p in (out / "samples-browser").rglob("*.js"))
    labels = sorted(p.name for p in (study / "scores").iterdir())
    assert files == sorted(Path(label) / f"{task}.js" for label in labels for task in TASKS)
    page = (out / "index.html").read_text()
    assert "window.pwned" not in page  # the completions are not in the page, only in data files
    assert ODD_RUN not in page  # the markup name appears only escaped


@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("selenium")
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = find_chromium(), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("headless Chromium + chromedriver not installed (make browser)")
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--window-size=1400,1000"):
        options.add_argument(flag)
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    yield driver
    driver.quit()


def _wait(driver, condition, timeout=15.0):
    end = time.time() + timeout
    while time.time() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting for the page")


def _count(driver) -> str:
    return driver.find_element("id", "sb-count").text


def _select(driver, element_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", element_id)).select_by_value(value)
    _wait(driver, lambda: _count(driver) not in ("", "loading..."))


def _expect_count(driver, pairs: int, samples: int, unit="problem \u00d7 checkpoint pairs") -> None:
    wanted = f"{pairs} {unit}, {samples} matching samples"
    _wait(driver, lambda: _count(driver).startswith(wanted))
    assert len(driver.find_elements("css selector", "tr.sb-row")) == min(pairs, 200)


def test_filters_change_the_count_as_the_logs_say(report, browser):
    study, out = report
    browser.get((out / "index.html").resolve().as_uri())
    final = ["k1-reward_s0__step20", "k3-loss_s0__step20", f"{ODD_RUN}__step0"]
    _expect_count(browser, *_expected(study, final, "add", None))
    _select(browser, "sb-status", "incorrect")
    _expect_count(browser, *_expected(study, final, "add", "incorrect"))
    _select(browser, "sb-status", "truncated")
    _expect_count(browser, *_expected(study, final, "add", "truncated"))
    _select(browser, "sb-status", "no_answer")
    _select(browser, "sb-task", "sub")
    _expect_count(browser, *_expected(study, final, "sub", "no_answer"))
    _select(browser, "sb-config", "k1-reward")
    _select(browser, "sb-step", "all")
    _expect_count(browser, *_expected(study, ["k1-reward_s0__step10", "k1-reward_s0__step20"], "sub", "no_answer"))
    _select(browser, "sb-step", "10")
    _select(browser, "sb-status", "")
    _expect_count(browser, *_expected(study, ["k1-reward_s0__step10"], "sub", None))
    assert browser.execute_script("return window.pwned === undefined")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_open_a_problem_shows_completions_verdicts_and_highlighted_answers(report, browser):
    study, out = report
    browser.get((out / "index.html").resolve().as_uri())
    _select(browser, "sb-config", "k3-loss")
    _select(browser, "sb-status", "incorrect")
    _expect_count(browser, *_expected(study, ["k3-loss_s0__step20"], "add", "incorrect"))
    row = browser.find_elements("css selector", "tr.sb-row")[0]
    problem, label = row.get_attribute("data-problem"), row.get_attribute("data-checkpoint")
    row.click()
    detail = _wait(browser, lambda: browser.find_element("id", "sb-detail").is_displayed()
                   and browser.find_element("id", "sb-detail"))
    assert browser.find_element("css selector", "pre.sb-prompt").text == NASTY_PROMPT  # shown, not parsed
    verdicts = [json.loads(x) for x in (study / "scores" / label / "add.jsonl").read_text().splitlines()]
    mine = [v for v in verdicts if v["problem_id"] == problem]
    cards = detail.find_elements("css selector", ".sb-sample")
    assert [c.get_attribute("data-status") for c in cards] == [v["status"] for v in mine]
    marks = [m.text for m in detail.find_elements("css selector", "mark.sb-answer")]
    assert marks == [v["extracted"] for v in mine if v["extracted"]]
    assert "rule: exact" in detail.text and "<script>window.pwned = 2</script>" in detail.text
    assert browser.execute_script("return window.pwned === undefined")


def test_two_configurations_side_by_side(report, browser):
    study, out = report
    browser.get((out / "index.html").resolve().as_uri())
    _select(browser, "sb-config", "k1-reward")
    _select(browser, "sb-compare", "k3-loss")
    browser.find_element("id", "sb-only-diff").click()

    def solved(label):
        rows = [json.loads(x) for x in (study / "scores" / label / "add.jsonl").read_text().splitlines()]
        return {r["problem_id"] for r in rows if r["status"] == "correct"}

    everything = {json.loads(x)["problem_id"] for x in
                  (study / "scores" / "k1-reward_s0__step20" / "add.jsonl").read_text().splitlines()}
    wanted = solved("k1-reward_s0__step20") - solved("k3-loss_s0__step20")
    assert 0 < len(wanted) < len(everything)
    _wait(browser, lambda: _count(browser).startswith(f"{len(wanted)} problems"))
    rows = browser.find_elements("css selector", "tr.sb-row")
    assert {r.get_attribute("data-problem") for r in rows} == wanted
    rows[0].click()
    sides = _wait(browser, lambda: browser.find_elements("css selector", ".sb-side"))
    assert [s.get_attribute("data-config") for s in sides] == ["k1-reward", "k3-loss"]
    left = [c.get_attribute("data-status") for c in sides[0].find_elements("css selector", ".sb-sample")]
    right = [c.get_attribute("data-status") for c in sides[1].find_elements("css selector", ".sb-sample")]
    assert "correct" in left and "correct" not in right


def test_anchor_opens_a_problem_across_configurations(report, browser):
    study, out = report
    anchor = problem_anchor("sub", "sub-007")
    browser.get("about:blank")  # a fresh page load, as when following a link from a terminal
    browser.get((out / "index.html").resolve().as_uri() + anchor)
    _wait(browser, lambda: "sub / sub-007" in browser.find_element("id", "sb-detail").text)
    sides = browser.find_elements("css selector", ".sb-side")
    assert [s.get_attribute("data-config") for s in sides] == [ODD_RUN, "k1-reward", "k3-loss"]
    # both steps of a swept configuration are shown
    assert len(sides[1].find_elements("css selector", ".sb-ckpt")) == 2
