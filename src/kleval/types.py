"""Plain data shared by every layer: problems, sampling settings, completions, verdicts, records."""
from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Protocol, Sequence


class Split(str, enum.Enum):
    """Whether a task is in the training distribution (id) or out of it (ood)."""

    ID = "id"
    OOD = "ood"


class AnswerKind(str, enum.Enum):
    """How a gold answer is compared: a math expression, a plain number, or a choice letter."""

    MATH = "math"
    NUMBER = "number"
    CHOICE = "choice"


@dataclass(frozen=True)
class Problem:
    """One benchmark item. `id` is stable across runs; `gold` is the canonical gold answer text."""

    id: str
    question: str
    gold: str
    kind: AnswerKind
    choices: tuple[str, ...] = ()  # answer options for choice tasks, in letter order A, B, C, ...
    reference: str | None = None  # reference solution text, when the dataset has one
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SamplingParams:
    """Decoding settings for one batched generate call; n completions per prompt."""

    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 2048  # the one default for kleval eval, the Python API and the lm-eval export
    seed: int = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        import numbers

        from kleval.errors import ConfigError  # a ValueError too; the CLI prints it as one line

        def check(name: str, value: Any, integer: bool, accept, wanted: str) -> None:
            kind = numbers.Integral if integer else numbers.Real
            if isinstance(value, bool) or not isinstance(value, kind) or not accept(value):
                raise ConfigError(f"{name} must be {wanted}, got {value!r}")

        check("n", self.n, True, lambda v: v >= 1, "an integer >= 1")
        check("temperature", self.temperature, False, lambda v: 0 <= v < float("inf"), "a number >= 0")
        check("top_p", self.top_p, False, lambda v: 0 < v <= 1, "a number in (0, 1]")
        check("max_tokens", self.max_tokens, True, lambda v: v >= 1, "an integer >= 1")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stop"] = list(self.stop)
        return d


@dataclass(frozen=True)
class Completion:
    """One generated continuation. finish_reason is "stop" (EOS or stop string) or "length"."""

    text: str
    num_tokens: int
    prompt_tokens: int
    finish_reason: str


class Backend(Protocol):
    """A generation engine. One call takes a batch of prompts and returns n completions for each."""

    name: str

    def generate(
        self, prompts: Sequence[str], params: SamplingParams, *, chat: bool = False
    ) -> list[list[Completion]]:
        """Return, for each prompt in order, exactly params.n completions.

        chat=True wraps each prompt as a single user turn with the tokenizer's chat template
        when the tokenizer has one (and uses the raw prompt otherwise).
        """
        ...

    def close(self) -> None: ...


class Status(str, enum.Enum):
    """Outcome of grading one completion. Only CORRECT counts as a success; the rest say why not."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    NO_ANSWER = "no_answer"  # nothing that looks like a final answer was found
    PARSE_ERROR = "parse_error"  # an answer was found but could not be parsed
    TIMEOUT = "timeout"  # grading exceeded its wall-clock limit (the worker was killed)
    GOLD_ERROR = "gold_error"  # the gold answer itself could not be parsed
    CRASH = "crash"  # the verifier itself failed on this item (raised, or its worker process died)


@dataclass(frozen=True)
class Verdict:
    """The grade of one completion, with enough detail to explain it."""

    status: Status
    extracted: str | None = None  # the answer span taken from the completion
    gold_canonical: str | None = None
    pred_canonical: str | None = None
    rule: str = ""  # which comparison rule decided (e.g. "exact-string", "sympy-equal")
    explanation: str = ""
    policy: str = ""  # the name of the grading policy that decided (verifier 2.0.0+)

    @property
    def correct(self) -> bool:
        return self.status is Status.CORRECT

    def to_dict(self) -> dict[str, Any]:
        return {
            "correct": self.correct,
            "status": self.status.value,
            "extracted": self.extracted,
            "gold_canonical": self.gold_canonical,
            "pred_canonical": self.pred_canonical,
            "rule": self.rule,
            "explanation": self.explanation,
            "policy": self.policy,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Verdict":
        return cls(
            status=Status(d["status"]),
            extracted=d.get("extracted"),
            gold_canonical=d.get("gold_canonical"),
            pred_canonical=d.get("pred_canonical"),
            rule=d.get("rule", ""),
            explanation=d.get("explanation", ""),
            policy=d.get("policy", ""),
        )
