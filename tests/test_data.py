"""Tests for kleval.data: data-dir resolution, JSONL reading with line numbers, hub loading, gold cleanup."""
from __future__ import annotations

import sys
import types

import pytest

from kleval import data
from kleval.data import answer_text, choice_list, get_field, read_hub, read_jsonl, resolve_data_dir
from kleval.errors import DataError


def test_data_dir_explicit_beats_environment(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.setenv("KLEVAL_DATA_DIR", str(tmp_path / "b"))
    chosen = resolve_data_dir(tmp_path / "a")
    assert (chosen.path, chosen.origin, chosen.strict) == (tmp_path / "a", "argument", True)
    chosen = resolve_data_dir()
    assert (chosen.path, chosen.origin, chosen.strict) == (tmp_path / "b", "environment", True)


def test_data_dir_default_is_shared_data_beside_the_project(tmp_path, monkeypatch):
    monkeypatch.delenv("KLEVAL_DATA_DIR", raising=False)
    monkeypatch.setattr(data, "project_root", lambda: tmp_path / "project")
    assert resolve_data_dir() is None  # nothing local: the hub is the only source left
    (tmp_path / "shared" / "data").mkdir(parents=True)
    chosen = resolve_data_dir()
    assert (chosen.path, chosen.origin, chosen.strict) == (tmp_path / "shared" / "data", "default", False)


def test_data_dir_that_does_not_exist_is_an_error(tmp_path, monkeypatch):
    with pytest.raises(DataError, match="does not exist"):
        resolve_data_dir(tmp_path / "nope")
    monkeypatch.setenv("KLEVAL_DATA_DIR", str(tmp_path / "nope"))
    with pytest.raises(DataError, match="KLEVAL_DATA_DIR"):
        resolve_data_dir()


def test_read_jsonl_skips_blank_lines_and_counts_rows(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n', encoding="utf-8")
    rows = list(read_jsonl(path))
    assert [(r.index, r.where, r.record["a"]) for r in rows] == [(0, f"{path}:1", 1), (1, f"{path}:3", 2)]


@pytest.mark.parametrize(
    "bad_line, message",
    [('{"a": ', "invalid JSON"), ("[1, 2]", "expected a JSON object")],
)
def test_read_jsonl_names_file_and_line_of_a_bad_row(tmp_path, bad_line, message):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}\n' + bad_line + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path}:3: {message}"):
        list(read_jsonl(path))


def test_read_jsonl_missing_file(tmp_path):
    with pytest.raises(DataError, match=rf"{tmp_path / 'gone.jsonl'}: data file not found"):
        list(read_jsonl(tmp_path / "gone.jsonl"))


def test_get_field_follows_dotted_paths_and_list_indices():
    record = {"question": {"stem": "Why?"}, "final_answer": ["$2$"], "n": 0}
    assert get_field(record, "question.stem", "f:1") == "Why?"
    assert get_field(record, "final_answer.0", "f:1") == "$2$"
    assert get_field(record, "n", "f:1") == 0
    assert get_field(record, "question.nope", "f:1", None) is None
    with pytest.raises(DataError, match=r"f:7: missing field 'final_answer\.1'"):
        get_field(record, "final_answer.1", "f:7")


@pytest.mark.parametrize(
    "raw, expected",
    [
        (27.0, "27"),  # AMC stores answers as JSON floats
        (-1.0, "-1"),
        (0.5, "0.5"),
        (3159, "3159"),
        ("025", "25"),  # AIME's three-digit answers
        ("-007", "-7"),
        ("0", "0"),
        ("0.25", "0.25"),
        (" 2,125 ", "2125"),  # GSM8K thousands separators
        ("1,450,000", "1450000"),
        ("1,3,5", "1,3,5"),  # a list, not a thousands separator
        ("(1,2)", "(1,2)"),
        ("$\\frac{1}{2n+2}$", "\\frac{1}{2n+2}"),  # OlympiadBench wraps answers in $...$
        ("$(-\\infty, 0) \\cup\\{1\\}$.", "(-\\infty, 0) \\cup\\{1\\}"),
        ("$f(n)=n$, $g(n)=1$", "f(n)=n, g(n)=1"),
        ("\\$15", "\\$15"),  # an escaped dollar is a currency sign, kept
        ("\\frac{1}{2}", "\\frac{1}{2}"),
    ],
)
def test_answer_text_gives_clean_gold_strings(raw, expected):
    assert answer_text(raw, "f:1") == expected


@pytest.mark.parametrize("raw", [None, True, "", "  ", "$$", [1], float("nan")])
def test_answer_text_rejects_unusable_gold(raw):
    with pytest.raises(DataError, match="f:9: gold answer"):
        answer_text(raw, "f:9")


def test_choice_list_accepts_the_shapes_datasets_use():
    expected_texts = ["red", "blue", "green"]
    plain = choice_list(["red", "blue", "green"], "f:1")
    objects = choice_list([{"text": t, "label": l} for t, l in zip(expected_texts, "123")], "f:1")
    parallel = choice_list({"text": expected_texts, "label": ["A", "B", "C"]}, "f:1")
    assert plain == (expected_texts, ["0", "1", "2"])
    assert objects == (expected_texts, ["1", "2", "3"])
    assert parallel == (expected_texts, ["A", "B", "C"])


@pytest.mark.parametrize("raw", ["abc", ["only one"], [{"label": "A"}, {"label": "B"}], [str(i) for i in range(27)]])
def test_choice_list_rejects_bad_options(raw):
    with pytest.raises(DataError, match="f:4"):
        choice_list(raw, "f:4")


def _fake_datasets(monkeypatch, load_dataset):
    module = types.ModuleType("datasets")
    module.load_dataset = load_dataset
    monkeypatch.setitem(sys.modules, "datasets", module)


def test_read_hub_yields_rows_with_their_position(monkeypatch):
    calls = []

    def load_dataset(hf_id, config, split):
        calls.append((hf_id, config, split))
        return [{"q": "one"}, {"q": "two"}]

    _fake_datasets(monkeypatch, load_dataset)
    rows = list(read_hub("org/set", "cfg", "test"))
    assert calls == [("org/set", "cfg", "test")]
    assert [(r.index, r.record["q"]) for r in rows] == [(0, "one"), (1, "two")]
    assert rows[1].where == "hf:org/set/cfg[test] row 1"


def test_read_hub_failure_is_a_data_error_that_says_what_to_do(monkeypatch):
    def load_dataset(hf_id, config, split):
        raise ConnectionError("Couldn't reach 'org/set' on the Hub (LocalEntryNotFoundError)\ndetails")

    _fake_datasets(monkeypatch, load_dataset)
    with pytest.raises(DataError, match=r"hf:org/set\[test\]: could not load .*Couldn't reach.*KLEVAL_DATA_DIR"):
        list(read_hub("org/set", None, "test"))
