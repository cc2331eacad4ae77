"""Rebuild math_verify.jsonl: the (gold, prediction, expected) cases of Math-Verify's own tests, as data.

Math-Verify (huggingface/Math-Verify, MIT) keeps its regression cases in `pytest.mark.parametrize`
lists. This script reads those test files with `ast` (nothing in them is imported or executed),
takes every literal case, and writes one JSONL row per case with the settings the case was run
under, so kleval can be graded on a peer suite that nobody on this project wrote. Only the data
cases are taken; none of Math-Verify's code is copied.

    python tests/verify/peer/build_math_verify.py /path/to/Math-Verify/tests > tests/verify/peer/math_verify.jsonl

Row fields: gold, completion (the prediction exactly as in the test), expected ("correct" /
"incorrect"), kind, source ("file::test[i]"), needs_config (non-default Math-Verify settings the
case is run with, else null), mv_call (the full call, so benchmarks can reproduce Math-Verify's own
run), note (the test's comment on the case, if any).
"""
from __future__ import annotations

import ast
import json
import math
import sys
from pathlib import Path

# The harness defaults of Math-Verify's `compare_strings` helper in tests/test_all.py (read, not copied).
HARNESS_DEFAULTS = {"match_types": ["latex", "expr"], "precision": 6, "strict": True, "allow_set_relation_comp": False}
# Test functions whose subject is a kind kleval grades differently from free-form math.
KIND_BY_TEST = {"test_all.py::test_number_extraction": "number", "test_string_extraction.py::test_string_extraction": "choice"}
MATH_FUNCTIONS = {"sqrt": math.sqrt}


def literal(node: ast.AST):
    """A Python literal, with the one f-string form the suite uses (f"{math.sqrt(17):.15f}")."""
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(value.value)
                continue
            call = value.value
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in MATH_FUNCTIONS):
                raise ValueError(f"unsupported f-string part at line {node.lineno}")
            number = MATH_FUNCTIONS[call.func.attr](literal(call.args[0]))
            spec = "".join(part.value for part in value.format_spec.values) if value.format_spec else ""
            parts.append(format(number, spec))
        return "".join(parts)
    if isinstance(node, (ast.Tuple, ast.List)):
        return [literal(element) for element in node.elts]
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "StringExtractionConfig":
        return {keyword.arg: literal(keyword.value) for keyword in node.keywords}
    return ast.literal_eval(node)


def comments_before(lines: list[str], start: int, end: int) -> str:
    """Comments on source lines [start, end] (1-based), joined: the test author's note on a case."""
    found = []
    for line in lines[start - 1:end]:
        if "#" in line:
            comment = line.split("#", 1)[1].strip()
            if comment and not comment.startswith(("gold", "pred")):
                found.append(comment)
    return "; ".join(found)


def call_settings(function: ast.FunctionDef) -> tuple[str, dict]:
    """Which harness the test body calls and with which keyword settings."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "compare_strings":
            settings = dict(HARNESS_DEFAULTS)
            for keyword in node.keywords:
                if isinstance(keyword.value, ast.Name):
                    settings[keyword.arg] = "from_case"
                else:
                    settings[keyword.arg] = literal(keyword.value)
            return "compare_strings", settings
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "verify":
            return "parse_verify", {}
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "parse":
            return "string_extraction", {}
    raise ValueError(f"{function.name}: no known harness call")


def non_default(settings: dict) -> dict | None:
    changed = {key: value for key, value in settings.items() if HARNESS_DEFAULTS.get(key) != value}
    return changed or None


def label(value) -> str:
    return "correct" if int(value) == 1 else "incorrect"


def rows_of_parametrized(path: Path, function: ast.FunctionDef, decorator: ast.Call, lines: list[str]):
    names = [name.strip() for name in literal(decorator.args[0]).split(",")]
    harness, settings = call_settings(function)
    kind = KIND_BY_TEST.get(f"{path.name}::{function.name}", "math")
    previous_end = decorator.args[1].lineno
    for index, case_node in enumerate(decorator.args[1].elts):
        case = dict(zip(names, literal(case_node)))
        note = comments_before(lines, previous_end + 1, case_node.end_lineno)
        previous_end = case_node.end_lineno
        source = f"tests/{path.name}::{function.name}[{index}]"
        if harness == "string_extraction":
            found = case["expected"]
            config = case["config"]
            row = {"gold": found[1] if found else "A", "completion": case["pred"],
                   "expected": "correct" if found else "incorrect", "kind": kind, "source": source,
                   "needs_config": {"string_config": config} if config else None,
                   "mv_call": {"harness": harness, "string_config": config},
                   "note": note if found else (note + "; " if note else "")
                   + "Math-Verify extracts nothing here, so no gold letter may be accepted"}
            yield row
            continue
        call = dict(settings)
        for key, value in list(call.items()):
            if value == "from_case":
                call[key] = case[key]
        expected = case.get("expected", case.get("result"))
        yield {"gold": case["gold"], "completion": case["pred"], "expected": label(expected), "kind": kind,
               "source": source, "needs_config": non_default(call) if harness == "compare_strings" else None,
               "mv_call": {"harness": harness, **call}, "note": note}


def rows_of_plain_calls(path: Path, function: ast.FunctionDef, lines: list[str]):
    """compare_strings(...) calls with literal arguments inside a non-parametrized test."""
    for index, node in enumerate(n for n in ast.walk(function) if isinstance(n, ast.Call)
                                 and getattr(n.func, "id", "") == "compare_strings"):
        compare = next(p for p in ast.walk(function) if isinstance(p, ast.Compare) and p.left is node)
        call = dict(HARNESS_DEFAULTS)
        call.update({keyword.arg: literal(keyword.value) for keyword in node.keywords})
        yield {"gold": literal(node.args[0]), "completion": literal(node.args[1]),
               "expected": label(literal(compare.comparators[0])), "kind": "math",
               "source": f"tests/{path.name}::{function.name}[{index}]", "needs_config": non_default(call),
               "mv_call": {"harness": "compare_strings", **call},
               "note": comments_before(lines, node.lineno - 1, node.lineno - 1)}


def rows_of_file(path: Path):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for function in ast.parse(text).body:
        if not isinstance(function, ast.FunctionDef) or not function.name.startswith("test_"):
            continue
        decorators = [d for d in function.decorator_list if isinstance(d, ast.Call)
                      and getattr(d.func, "attr", "") == "parametrize"]
        if decorators:
            yield from rows_of_parametrized(path, function, decorators[0], lines)
        elif function.name == "test_precision":
            yield from rows_of_plain_calls(path, function, lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print("usage: build_math_verify.py MATH_VERIFY_TESTS_DIR > math_verify.jsonl", file=sys.stderr)
        return 2
    for path in sorted(Path(argv[1]).glob("test_*.py")):
        for row in rows_of_file(path):
            print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
