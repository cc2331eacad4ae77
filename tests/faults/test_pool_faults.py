"""The grading pool never hangs: long completions both ways through the pipes, hung, crashing
and raising verifiers, and a time limit that fires on time. Every wait here has a deadline so
a regression fails instead of hanging the suite."""
from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout

import pytest
from faultkit import run_kleval

from kleval.types import Status
from kleval.verify import VerifierPool, VerifyItem, verify

pytestmark = pytest.mark.faults
HOOK = "pool_hooks:slow_verify"


def long_items(count: int, policy: str, seed: int = 0) -> list[VerifyItem]:
    """Completions of 8,000-40,000 characters ending in a boxed answer, half of them right."""
    rng = random.Random(seed)
    items = []
    for i in range(count):
        words = " ".join(rng.choice(["so", "x", "we", "then", "12", "+", "the", "sum"]) for _ in range(rng.randint(2700, 13000)))
        answer = i if i % 2 else i + 1
        items.append(VerifyItem(str(i), f"{words[:40_000 - 20]} \\boxed{{{answer}}}", "math", policy))
    assert all(8_000 <= len(item.completion) <= 40_000 for item in items)
    return items


@contextlib.contextmanager
def bounded_pool(**options):
    """A VerifierPool whose close() gets 30 s; a hung pool is abandoned (daemon threads) and fails."""
    pool = VerifierPool(**options)
    try:
        yield pool
    finally:
        closer = threading.Thread(target=pool.close, daemon=True)
        closer.start()
        closer.join(30)
        if closer.is_alive():
            for worker in list(pool._pool):
                worker.process.kill()
            pytest.fail("VerifierPool.close() hung")


def map_within(pool: VerifierPool, items, seconds: float):
    """pool.map with a deadline, so a deadlock fails the test instead of hanging it."""
    try:
        return pool.submit(items).result(timeout=seconds)
    except FutureTimeout:
        pytest.fail(f"grading {len(items)} items did not finish within {seconds} s (pool deadlock?)")


@pytest.mark.parametrize("policy", ["exact", pytest.param("default", marks=pytest.mark.slow)])
def test_long_completions_through_the_pool_api(policy):
    items = long_items(72, policy)
    with bounded_pool(workers=2, timeout_s=30) as pool:
        verdicts = map_within(pool, items, 90)
    expected = [verify(gold=i.gold, completion=i.completion, kind=i.kind, policy=i.policy) for i in items]
    assert [v.to_dict() for v in verdicts] == [v.to_dict() for v in expected]
    assert {v.status for v in verdicts} <= {Status.CORRECT, Status.INCORRECT, Status.NO_ANSWER}


def test_long_replies_and_long_requests_at_once():
    """Each verdict echoes its 40,000-character completion: both pipes full in both directions."""
    items = [VerifyItem("0", "echo" + "y" * 40_000) for _ in range(96)]
    with bounded_pool(workers=2, timeout_s=30, verify_fn=HOOK) as pool:
        verdicts = map_within(pool, items, 60)
    assert all(v.extracted == items[0].completion for v in verdicts)


@pytest.mark.parametrize("policy", ["exact", pytest.param("default", marks=pytest.mark.slow)])
def test_long_completions_through_kleval_verify(tmp_path, policy):
    rows = [{"gold": i.gold, "completion": i.completion, "policy": policy} for i in long_items(64, policy, seed=1)]
    source, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = run_kleval("verify", "--input", source, "--output", output, timeout=120)
    assert done.returncode == 0, done.stderr
    graded = [json.loads(line) for line in output.read_text().splitlines()]
    assert len(graded) == 64 and all(g["status"] in ("correct", "incorrect", "no_answer") for g in graded)


def test_hung_items_time_out_on_time_and_workers_are_replaced():
    items = [VerifyItem("0", "a"), VerifyItem("60", "hang"), VerifyItem("0", "b"), VerifyItem("60", "hang2"), VerifyItem("0", "c")]
    with bounded_pool(workers=2, timeout_s=1.0, verify_fn=HOOK) as pool:
        map_within(pool, items[:1], 120)  # workers started
        start = time.monotonic()
        verdicts = map_within(pool, items, 60)
        elapsed = time.monotonic() - start
        assert pool.restarts == 2 and pool.stats.timeouts == 2
        lateness = pool.stats.max_kill_lateness_s
    assert [v.status for v in verdicts] == [Status.CORRECT, Status.TIMEOUT, Status.CORRECT, Status.TIMEOUT, Status.CORRECT]
    assert "exceeded 1 s" in verdicts[1].explanation
    assert lateness < 1.0, f"the limit fired {lateness:.2f} s late"
    assert elapsed < 30  # two 1 s limits, not two 60 s sleeps


def test_a_dying_or_raising_verifier_is_a_crash_not_a_timeout():
    items = [VerifyItem("0", "a"), VerifyItem("0", "crash"), VerifyItem("0", "raise"), VerifyItem("0", "b")]
    with bounded_pool(workers=1, timeout_s=30, verify_fn=HOOK) as pool:
        verdicts = map_within(pool, items, 120)
        assert pool.stats.crashes == 1 and pool.stats.timeouts == 0
    assert [v.status for v in verdicts] == [Status.CORRECT, Status.CRASH, Status.CRASH, Status.CORRECT]
    assert "died on this item (exit code 3)" in verdicts[1].explanation
    assert "ValueError: hook raised on purpose" in verdicts[2].explanation


def test_gold_that_breaks_the_verifier_is_never_reported_as_timeout():
    with bounded_pool(workers=1, timeout_s=30) as pool:
        [verdict] = map_within(pool, [VerifyItem("2i<e", "\\boxed{1}")], 120)
    assert verdict.status in (Status.CRASH, Status.GOLD_ERROR), verdict


def test_pool_rejects_bad_settings():
    for bad in ({"workers": 0}, {"workers": -1}, {"timeout_s": 0}, {"timeout_s": float("nan")}, {"chunk_size": 0}):
        with pytest.raises(ValueError):
            VerifierPool(**bad)


def fake_served_model(root) -> str:
    """A model directory as discovery wants one; the stub server does the generating."""
    model = root / "served"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"")
    return str(model)


@pytest.mark.slow
def test_study_eval_and_rescore_of_long_outputs(tmp_path, data_dir):
    from stub_openai import StubOpenAI

    out = tmp_path / "study"
    with StubOpenAI(length=40_000, long_answers=True) as server:
        done = run_kleval("eval", "--backend", "openai", "--checkpoints", fake_served_model(tmp_path), "--tokenizer", "tok",
                          "--tasks", "math500", "--limit", "16", "--n", "4", "--out", out, "--data-dir", data_dir,
                          "--verify-workers", "2", "--no-progress", timeout=180, OPENAI_BASE_URL=server.base_url)
    assert done.returncode == 0, done.stderr
    scores = [json.loads(l) for l in (out / "scores" / "served" / "math500.jsonl").read_text().splitlines()]
    assert len(scores) == 64 and not any(s["status"] in ("timeout", "crash") for s in scores)
    before = (out / "results.csv").read_text()
    done = run_kleval("rescore", out, timeout=180)
    assert done.returncode == 0, done.stderr
    assert (out / "results.csv").read_text() == before
