"""Every verdict a committed report shows is what the current verifier says.

The committed reports (reports/*/) carry their samples in the sample browser's scripts (the raw
samples/ and scores/ are git-ignored). Each stored completion is graded again with its task's
current `Task.score`; a changed status means a verifier change moved a committed report's numbers,
and that report must be regenerated in the same change (the command is in docs/ and the report's
own README or header). A report's header may still name an older verifier version when no verdict
changed (regenerating the long training studies takes an hour of CPU).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_HEAD = re.compile(r'kleval_samples\(("(?:[^"\\]|\\.)*"),("(?:[^"\\]|\\.)*"),')
BROWSER_SCRIPTS = sorted(ROOT.glob("reports/*/samples-browser/*/*.js"))


def _samples(script: Path) -> tuple[str, list[dict]]:
    text = script.read_text()
    head = SCRIPT_HEAD.match(text)
    assert head, f"{script}: not a sample-browser script"
    payload = json.loads(text[head.end():text.rstrip().rindex(")")])
    return json.loads(head.group(2)), payload["problems"]


@pytest.mark.slow
def test_committed_report_verdicts_are_the_current_verifiers(data_dir):
    from kleval.tasks import load_task

    assert BROWSER_SCRIPTS, "no committed sample browser found under reports/"
    tasks, problems, graded, changed = {}, {}, Counter(), []
    for script in BROWSER_SCRIPTS:
        name, stored = _samples(script)
        if name not in tasks:
            tasks[name] = load_task(name, data_dir=data_dir)
            problems[name] = {p.id: p for p in tasks[name].problems()}
        for problem in stored:
            for sample in problem["samples"]:
                verdict = tasks[name].score(problems[name][problem["id"]], "".join(sample["parts"]))
                graded[script.parts[-4]] += 1
                if verdict.status.value != sample["status"]:
                    changed.append(f"{script.relative_to(ROOT)} {problem['id']} #{sample['i']}: "
                                   f"{sample['status']} -> {verdict.status.value}")
    assert len(graded) >= 5 and sum(graded.values()) > 10_000, graded
    assert not changed, f"{len(changed)} committed verdicts changed; regenerate those reports:\n" + "\n".join(changed[:20])
