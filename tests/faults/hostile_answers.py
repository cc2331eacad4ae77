"""Pathological completions (families x sizes) for grading under load; shared with benchmarks/faults.py."""
from __future__ import annotations


def hostile_completions() -> list[str]:
    families = {
        "answer_then_spaces": lambda n: "the answer is" + " " * n,
        "spaces_and_newlines": lambda n: " \n" * n,
        "unclosed_boxed": lambda n: "\\boxed{" * n,
        "nested_braces": lambda n: "\\boxed{" + "{" * n + "3" + "}" * n + "}",
        "frac_chain": lambda n: "\\boxed{" + "\\frac{1}{" * n + "2" + "}" * (n + 1),
        "power_tower": lambda n: "\\boxed{" + "^".join(["9"] * n) + "}",
        "huge_power": lambda n: f"\\boxed{{10^{{10^{{{n}}}}}}}",
        "long_digits": lambda n: "\\boxed{" + "7" * (n * 100) + "}",
        "sqrt_nesting": lambda n: "\\boxed{" + "\\sqrt{" * n + "2" + "}" * n + "}",
        "factorial": lambda n: f"\\boxed{{{n}!}}",
        "gsm8k_markers": lambda n: "A: " * n + "#### 3",
        "trailing_units": lambda n: "\\boxed{3" + " m" * n + "}",
        "unbalanced_left": lambda n: "\\boxed{" + "\\left(" * n + "3}",
        "many_dollars": lambda n: "$x$ " * n + "$3$",
        "nul_and_junk": lambda n: "\x00\ufffd\u202e" * n + "\\boxed{3}",
    }
    sizes = (8, 40, 200, 800)
    return [build(n) for build in families.values() for n in sizes]
