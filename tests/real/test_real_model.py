"""A real instruct model end to end on CPU: `kleval eval` on GSM8K, MATH500 and MMLU college physics.

SmolLM2-135M-Instruct (30 layers, vocab 49,152, a chat template) writes real answers of a hundred
tokens and more (the study stops them at 128). The assertions are what any real model must produce
through kleval (chat-templated prompts, non-empty completions, EOS stopping some of them, long
text where one runs to the limit, answers extracted from some, a resumed study adding nothing),
never its accuracy. The backend checks use the same model: a sample does
not depend on the batch around it, generation_config.json's processors are ignored, and no step
keeps logits for more than the last position.
"""
from __future__ import annotations

import json
import os

import pytest

pytestmark = [pytest.mark.real, pytest.mark.slow]

TASKS = ("gsm8k", "math500", "mmlu_college_physics")
N, LIMIT, MAX_TOKENS = 2, 2, 128


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def study(smollm2_gguf, smollm2_dir, data_dir, tmp_path_factory):
    """One `kleval eval` run of the GGUF file itself on the three tasks; returns (args, study dir)."""
    from kleval.cli import main

    out = tmp_path_factory.mktemp("real") / "study"
    args = ["eval", "--checkpoints", str(smollm2_gguf), "--tasks", ",".join(TASKS), "--n", str(N),
            "--k", "1,2", "--temperature", "1.0", "--max-tokens", str(MAX_TOKENS), "--limit", str(LIMIT),
            "--seed", "0", "--data-dir", str(data_dir), "--out", str(out), "--no-progress"]
    assert main(args) == 0
    return args, out


def test_eval_of_a_gguf_file_writes_real_completions(study, smollm2_dir, data_dir):
    from transformers import AutoTokenizer

    from kleval.backends.common import apply_chat
    from kleval.tasks import load_task

    _, out = study
    (entry,) = json.loads((out / "checkpoints.json").read_text())
    assert entry["format"] == "gguf" and entry["label"] == "SmolLM2-135M-Instruct.Q4_1"
    tokenizer = AutoTokenizer.from_pretrained(smollm2_dir)
    all_rows = []
    for name in TASKS:
        rows = _jsonl(out / "samples" / entry["label"] / f"{name}.jsonl")
        assert len(rows) == LIMIT * N and {r["sample_index"] for r in rows} == set(range(N))
        task = load_task(name, data_dir=data_dir)
        by_id = {p.id: p for p in task.problems(limit=LIMIT)}
        for row in rows:
            # the prompt reached the model as a chat turn: its token count is the templated one
            templated = apply_chat(tokenizer, [task.prompt(by_id[row["problem_id"]])], True)[0]
            assert templated.startswith("<|im_start|>") and templated.endswith("<|im_start|>assistant\n")
            assert row["prompt_tokens"] == len(tokenizer(templated, add_special_tokens=False)["input_ids"])
            assert row["completion"].strip(), "a real model writes something"
            assert "<|im_end|>" not in row["completion"] and "<|im_start|>" not in row["completion"]
            assert 1 <= row["num_tokens"] <= MAX_TOKENS
            assert (row["finish_reason"] == "length") == (row["num_tokens"] == MAX_TOKENS)
        all_rows += rows
    stopped = [r for r in all_rows if r["finish_reason"] == "stop"]
    assert stopped, f"no completion ended with EOS in {MAX_TOKENS} tokens"
    # long real text: a completion that ran to the token limit decodes to words, over 2 characters a
    # token (the same bar as 500 characters in 256 tokens before; SmolLM2 writes about 3 to 3.5)
    assert any(r["num_tokens"] == MAX_TOKENS and len(r["completion"]) > 2 * MAX_TOKENS for r in all_rows), \
        "expected some long real text"


def test_answers_are_extracted_and_every_sample_is_graded(study):
    _, out = study
    label = "SmolLM2-135M-Instruct.Q4_1"
    extracted = 0
    for name in TASKS:
        verdicts = _jsonl(out / "scores" / label / f"{name}.jsonl")
        assert len(verdicts) == LIMIT * N
        statuses = {v["status"] for v in verdicts}
        assert statuses <= {"correct", "incorrect", "no_answer", "parse_error"}, statuses  # no timeout/crash
        extracted += sum(bool(v.get("extracted")) for v in verdicts)
    assert extracted > 0, "the verifier found no answer in any real completion"
    assert (out / "results.csv").is_file()


def test_rerunning_the_study_adds_nothing(study):
    from kleval.cli import main

    args, out = study
    before = {p: p.read_bytes() for p in sorted((out / "samples").rglob("*.jsonl"))}
    assert main(args) == 0
    assert {p: p.read_bytes() for p in sorted((out / "samples").rglob("*.jsonl"))} == before


# ---- the hf backend at real size ------------------------------------------------------------------


@pytest.fixture(scope="module")
def backend(smollm2_dir):
    from kleval.backends import make_backend

    b = make_backend("hf", smollm2_dir, device="cpu", batch_size=8)
    yield b
    b.close()


PROMPTS = [
    "What is 17 + 25? Put the final answer within \\boxed{}.",
    ("A train travels 60 miles per hour for 2.5 hours, then 40 miles per hour for 1 hour. How far does "
     "it travel in total, and what is its average speed over the whole trip? Reason step by step."),
    "Name a prime number.",
]


# Prompt 0 left-padded beside a much longer prompt; its samples at T=1 are what both the batch test and
# the generation-config test compare against, so they are generated once.
MIXED = [PROMPTS[1], PROMPTS[0], PROMPTS[2]]


def _params():
    from kleval.types import SamplingParams

    return SamplingParams(n=2, temperature=1.0, max_tokens=48, seed=3)


@pytest.fixture(scope="module")
def mixed(backend):
    """backend.generate(MIXED, _params()): this module's backend, batch size 8, no generation config changes."""
    return backend.generate(MIXED, _params(), chat=True)


def test_a_sample_does_not_depend_on_its_batch(backend, mixed):
    """Prompt 0 alone, then left-padded beside a much longer prompt, in other orders and chunkings."""
    params = _params()
    alone = backend.generate(PROMPTS[:1], params, chat=True)[0]
    backend.batch_size = 1
    try:
        one_by_one = backend.generate([PROMPTS[2], PROMPTS[0]], params, chat=True)
    finally:
        backend.batch_size = 8
    texts = [c.text for c in alone]
    assert texts[0] != texts[1], "two samples of one prompt should differ at T=1"
    assert [c.text for c in mixed[1]] == texts
    assert [c.text for c in one_by_one[1]] == texts
    assert [c.text for c in mixed[2]] == [c.text for c in one_by_one[0]]


def test_no_step_keeps_logits_beyond_the_last_position(backend, monkeypatch):
    from kleval.types import SamplingParams

    shapes = []
    forward = backend.model.forward

    def recording_forward(*args, **kwargs):
        out = forward(*args, **kwargs)
        shapes.append(tuple(out.logits.shape))
        return out

    monkeypatch.setattr(backend.model, "forward", recording_forward)
    backend.generate(PROMPTS, SamplingParams(n=1, temperature=1.0, max_tokens=8, seed=0), chat=True)
    assert shapes and all(s[1] == 1 for s in shapes), shapes  # [batch, 1, vocab], never [batch, T, vocab]
    assert shapes[0][0] == len(PROMPTS)


def test_generation_config_processors_are_ignored(smollm2_dir, mixed, tmp_path):
    """A checkpoint whose generation_config.json asks for repetition_penalty/top_k/temperature
    samples exactly as the same weights without them (the module's backend, `mixed`): sampling is
    from softmax(logits / T) only."""
    from kleval.backends import make_backend

    shaped = tmp_path / "with_generation_config"
    shaped.mkdir()
    for item in smollm2_dir.iterdir():
        if item.name != "generation_config.json":
            os.symlink(item, shaped / item.name)
    config = json.loads((smollm2_dir / "generation_config.json").read_text())
    config.update(repetition_penalty=1.05, top_k=5, top_p=0.5, temperature=0.3, do_sample=True)
    (shaped / "generation_config.json").write_text(json.dumps(config))
    other = make_backend("hf", shaped, device="cpu", batch_size=8)
    try:
        assert other.model.generation_config.repetition_penalty == 1.05  # the file was read ...
        theirs = other.generate(MIXED, _params(), chat=True)
    finally:
        other.close()
    assert [[c.text for c in g] for g in theirs] == [[c.text for c in g] for g in mixed]  # ... and ignored


def test_a_quiet_conversion_draws_no_progress_bar(smollm2_gguf, smollm2_conversion, tmp_path, monkeypatch, capfd):
    """quiet=True (what tests and scripted callers pass): no status line and none of transformers'
    own GGUF bars ("Converting and de-quantizing GGUF tensors...", shard writing) reach the terminal.
    On a cold cache the session's own conversion (conftest.smollm2_conversion) is the one checked; on a warm one
    the model is converted again into a fresh cache, so a real conversion is always what is checked."""
    from kleval.models import convert_gguf

    converted, printed = smollm2_conversion
    assert (converted / "config.json").is_file()
    if printed is None:
        monkeypatch.setenv("KLEVAL_CACHE", str(tmp_path))  # a fresh cache: the conversion really runs
        converted = convert_gguf(smollm2_gguf, quiet=True)
        assert (converted / "config.json").is_file()
        captured = capfd.readouterr()
        printed = captured.err + captured.out
    assert "GGUF tensors" not in printed
    assert "kleval gguf" not in printed
