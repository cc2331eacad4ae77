"""Does the verifier give the same verdict to the same answer written another way? (issue 10)

Each transform rewrites a completion without changing what it says: `\\(x\\)` for `$x$`, "Thus" for
"Therefore", a trailing newline, a Unicode minus, a bold answer line, a closing "I hope it is correct.",
... A verdict that changes under such a rewrite is a rule that reads one notation and not the other: a
class of errors that no labelled row shows until a model writes that notation. The check needs no new
labels, so it runs on every row we have: the regression and adversarial corpora, the peer suite, the
development parts of the held-out rounds and the labelled bench outputs. The frozen held-out sets are
never read.

Printed per transform: rows it rewrites, verdicts that change, and among the labelled rows how many
changes turn a verdict that agrees with the label into one that does not (`right -> wrong`) and the
reverse. `--show N` lists N changes per transform.

    .venv/bin/python benchmarks/verify_metamorphic.py [--transforms a,b] [--show N] [--json OUT] [--workers 2]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


# ---- the rewrites: each returns the rewritten completion, or None where it does not apply ----

def _math_dollars(text: str) -> bool:
    """Whether every `$` of `text` delimits math (no currency sign that a rewrite could pair wrongly)."""
    if "\\$" in text or text.count("$") % 2 or "$" not in text or "{$" in text or "$}" in text:
        return False
    for m in re.finditer(r"\$([^$]*)\$", text.replace("$$", "")):  # currency pairs up across prose words
        if re.search(r"(?<![\\a-zA-Z])[a-zA-Z]{3,}(?![a-zA-Z{])", re.sub(r"\\[a-zA-Z]+(\{[^}]*\})?", "", m.group(1))):
            return False
    return True


def dollar_to_paren(t: str) -> str | None:
    if not _math_dollars(t):
        return None
    t = re.sub(r"\$\$(.+?)\$\$", lambda m: "\\[" + m.group(1) + "\\]", t, flags=re.DOTALL)
    return None if t.count("$") % 2 else re.sub(r"\$(.+?)\$", lambda m: "\\(" + m.group(1) + "\\)", t, flags=re.DOTALL)


def paren_to_dollar(t: str) -> str | None:
    if ("\\(" not in t and "\\[" not in t) or "$" in t:
        return None
    t = re.sub(r"(?<!\\)\\\[(.+?)(?<!\\)\\\]", lambda m: "$$" + m.group(1) + "$$", t, flags=re.DOTALL)
    return re.sub(r"(?<!\\)\\\((.+?)(?<!\\)\\\)", lambda m: "$" + m.group(1) + "$", t, flags=re.DOTALL)


_OPENER_SWAP = {"Therefore": "Thus", "Thus": "Hence", "Hence": "Therefore", "So": "Therefore,"}


def opener_swap(t: str) -> str | None:
    found = list(re.finditer(r"(?:^|(?<=\n)|(?<=\. ))(Therefore|Thus|Hence|So)\b(,?)", t))
    if not found:
        return None
    m = found[-1]
    new = _OPENER_SWAP[m.group(1)]
    new = new.rstrip(",") if m.group(2) else new
    return t[: m.start()] + new + m.group(2) + t[m.end() :]


def trailing_newline(t: str) -> str | None:
    return t + "\n"


def strip_trailing_spaces(t: str) -> str | None:
    return re.sub(r"[ \t]+\n", "\n", t).rstrip()


def crlf(t: str) -> str | None:
    return t.replace("\n", "\r\n") if "\n" in t else None


def double_space(t: str) -> str | None:
    return re.sub(r"(?<=\.) (?=[A-Z])", "  ", t)


def unicode_minus(t: str) -> str | None:
    return re.sub(r"(?<=[\s(=])-(?=\d)", "\u2212", t)


def ascii_minus(t: str) -> str | None:
    return t.replace("\u2212", "-")


def drop_final_period(t: str) -> str | None:
    s = t.rstrip()
    return s[:-1] if s.endswith(".") and not s.endswith("..") else None


def prefix_line(t: str) -> str | None:
    """A neutral opening line (only before a text of several lines: a one-line bare answer would stop being bare)."""
    return "Let's work through this carefully.\n\n" + t if "\n" in t.strip() and len(t) >= 80 else None


def final_answer_phrase(t: str) -> str | None:
    return re.sub(r"\b([Tt])he answer is\b", r"\1he final answer is", t)


def single_newlines(t: str) -> str | None:
    return None if "\\begin" in t or "$$" in t else re.sub(r"\n\n+", "\n", t)


def answer_line_bold(t: str) -> str | None:
    return re.sub(r"(?m)^(Final [Aa]nswer|Answer|ANSWER):[ ]", r"**\1:** ", t)


def answer_line_plain(t: str) -> str | None:
    return re.sub(r"(?m)^\*\*(Final [Aa]nswer|Answer|ANSWER):\*\*[ ]", r"\1: ", t)


def answer_case(t: str) -> str | None:
    return re.sub(r"(?m)^(\**)(Answer|Final Answer|Final answer)(:)", lambda m: m.group(1) + m.group(2).upper() + m.group(3), t)


def dfrac(t: str) -> str | None:
    return t.replace("\\frac{", "\\dfrac{")


def box_spaces(t: str) -> str | None:
    return re.sub(r"\\boxed\{([^{}]+)\}", lambda m: "\\boxed{ " + m.group(1).strip() + " }", t)


def unwrap_box_dollars(t: str) -> str | None:
    return re.sub(r"\$(\\boxed\{[^{}$]*\})\$", r"\1", t)


def wrap_box_dollars(t: str) -> str | None:
    return None if "$" in t else re.sub(r"(\\boxed\{[^{}$]*\})", r"$\1$", t)


def _last_sentence(t: str) -> tuple[int, int]:
    body = t.rstrip()
    return max(body.rfind("\n"), body.rfind(". ", 0, len(body) - 1)) + 1, len(body)


def wrap_numbers(t: str) -> str | None:
    """Every number standing alone in the final sentence written in `$...$` (a sentence without math or markup)."""
    a, b = _last_sentence(t)
    sentence = t[a:b]
    if "$" in sentence or "\\" in sentence or "**" in sentence or re.search(r"\d[,:/]\d|[²³√^!%]|\d[a-zA-Z]|[a-zA-Z(]\d", sentence):
        return None
    return t[:a] + re.sub(r"(?<![^\s])(-?\d+(?:\.\d+)?)(?=[\s.,;:]|$)", r"$\1$", sentence) + t[b:]


def bold_final_value(t: str) -> str | None:
    m = re.search(r"(?<=\bis )(-?\d+(?:\.\d+)?)(\.?\s*)$", t)
    return t[: m.start()] + "**" + m.group(1) + "**" + m.group(2) if m else None


def bold_final_sentence(t: str) -> str | None:
    a, b = _last_sentence(t)
    sentence = t[a:b].strip()
    if "**" in sentence or "$$" in sentence or len(sentence) < 8:
        return None
    return t[:a] + t[a:b][: len(t[a:b]) - len(t[a:b].lstrip())] + "**" + sentence + "**" + t[b:]


def courtesy_close(t: str) -> str | None:
    return t.rstrip() + " I hope it is correct."


def check_mark(t: str) -> str | None:
    return t.rstrip() + " \u2705"


def eq_spacing(t: str) -> str | None:
    return re.sub(r"(?<=\w) = (?=[\w\\-])", "=", t)


TRANSFORMS = {f.__name__: f for f in (
    dollar_to_paren, paren_to_dollar, opener_swap, trailing_newline, strip_trailing_spaces, crlf, double_space,
    unicode_minus, ascii_minus, drop_final_period, prefix_line, final_answer_phrase, single_newlines, answer_line_bold,
    answer_line_plain, answer_case, dfrac, box_spaces, unwrap_box_dollars, wrap_box_dollars, wrap_numbers,
    bold_final_value, bold_final_sentence, courtesy_close, check_mark, eq_spacing)}


def rewrite(name: str, text: str) -> str | None:
    """`text` rewritten by transform `name`, or None where it does not apply or changes nothing."""
    out = TRANSFORMS[name](text)
    return out if out is not None and out != text else None


# ---- the rows ----

def _load_corpus_module():
    spec = importlib.util.spec_from_file_location("kleval_verify_corpus", ROOT / "tests" / "verify" / "peer" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def corpus_rows(include_bench: bool = True) -> list[dict]:
    """Every labelled row but the frozen held-out sets': (set, id, gold, completion, kind, policy, expected)."""
    corpus = _load_corpus_module()
    rows = []

    def add(name: str, items: list[dict]) -> None:
        for i, row in enumerate(items):
            if "gold" in row and "completion" in row and not row.get("debatable"):
                rows.append({"set": name, "id": row.get("id", row.get("source", i)), "gold": row["gold"],
                             "completion": row["completion"], "kind": row.get("kind") or "math",
                             "policy": row.get("policy") or "default", "expected": row.get("expected")})

    for name in ("regression.jsonl", "adversarial.jsonl"):  # (their labels: "correct", "not-correct", "no_answer")
        lines = (ROOT / "tests" / "verify" / name).read_text(encoding="utf-8").splitlines()
        add(name, [json.loads(line) for line in lines if line.strip()])
    add("peer", corpus.load_jsonl(corpus.PEER_SUITE))
    for name, path in corpus.heldout_files().items():
        if "frozen" not in name and "frozen" not in str(path):
            add(name, corpus.load_jsonl(path))
    if include_bench:
        import verify_bench

        for i, row in enumerate(verify_bench.load_rows(None)):
            kind, policy = verify_bench.policy_for(row)
            rows.append({"set": "bench/" + verify_bench.source_of(row), "id": i, "gold": row["gold"],
                         "completion": row["completion"], "kind": kind, "policy": policy,
                         "expected": "correct" if row["label"] else "incorrect"})
    return rows


def _status(row: dict, completion: str) -> str:
    from kleval.verify import verify

    try:
        return verify(gold=row["gold"], completion=completion, kind=row["kind"], policy=row["policy"]).status.value
    except Exception as exc:  # noqa: BLE001 - a crash is a finding, reported as such
        return f"exception:{type(exc).__name__}"


def changes(row: dict, names: list[str]) -> tuple[list[str], list[dict]]:
    """(the transforms of `names` that rewrite `row`, the verdict changes they cause: one dict per change)."""
    if row["policy"] == "exact":  # (the whole completion is the answer there: no rewrite keeps its meaning)
        return [], []
    rewritten = {name: text for name in names if (text := rewrite(name, row["completion"])) is not None}
    base = _status(row, row["completion"]) if rewritten else None
    out = []
    for name, new_text in rewritten.items():
        new = _status(row, new_text)
        if new != base:
            out.append({"transform": name, "set": row["set"], "id": row["id"], "gold": row["gold"], "kind": row["kind"],
                        "expected": row["expected"], "before": base, "after": new, "completion": row["completion"],
                        "rewritten": new_text})
    return list(rewritten), out


def _work(args):
    return changes(*args)


def _agrees(status: str, expected: str | None) -> bool | None:
    if expected is None:
        return None
    return (status == "correct") == (expected == "correct")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--transforms", help="comma-separated names (default: all)")
    parser.add_argument("--show", type=int, default=0, help="list N changes per transform")
    parser.add_argument("--json", help="write every change to this file")
    parser.add_argument("--no-bench", action="store_true", help="the corpus rows only (no labelled bench outputs)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    names = args.transforms.split(",") if args.transforms else list(TRANSFORMS)
    unknown = [n for n in names if n not in TRANSFORMS]
    if unknown:
        print(f"error: unknown transform(s) {', '.join(unknown)}; known: {', '.join(TRANSFORMS)}", file=sys.stderr)
        return 2
    rows = corpus_rows(include_bench=not args.no_bench)
    started = time.perf_counter()
    applied = Counter()
    found = []
    with multiprocessing.Pool(args.workers) as pool:
        for rewritten, row_changes in pool.imap(_work, [(r, names) for r in rows], chunksize=40):
            applied.update(rewritten)
            found.extend(row_changes)
    from kleval.verify import VERIFIER_VERSION

    print(f"kleval verifier {VERIFIER_VERSION}: {len(rows)} rows (frozen held-out sets never read), "
          f"{time.perf_counter() - started:.0f} s")
    print(f"{'transform':24} {'rewritten':>9} {'changed':>8} {'right->wrong':>13} {'wrong->right':>13}")
    for n in names:
        mine = [c for c in found if c["transform"] == n]
        worse = sum(1 for c in mine if _agrees(c["before"], c["expected"]) and _agrees(c["after"], c["expected"]) is False)
        better = sum(1 for c in mine if _agrees(c["before"], c["expected"]) is False and _agrees(c["after"], c["expected"]))
        print(f"{n:24} {applied[n]:9d} {len(mine):8d} {worse:13d} {better:13d}")
        for c in mine[: args.show]:
            print(f"    {c['set']} {c['id']}: gold {c['gold']!r}, expected {c['expected']}, {c['before']} -> {c['after']}; "
                  f"...{c['rewritten'][-100:]!r}")
    print(f"total: {len(found)} verdict changes")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": len(rows), "applied": applied, "changes": found}, ensure_ascii=False,
                                              indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
