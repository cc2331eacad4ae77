"""The study directory's crash-safe logs and comparability checks."""
from __future__ import annotations

import json

import pytest

from kleval.errors import ConfigError, DataError
from kleval.eval import study as layout


def test_append_then_read_roundtrip(tmp_path):
    path = tmp_path / "a" / "log.jsonl"
    layout.append_jsonl(path, [{"x": 1}, {"x": 2, "s": "é"}])
    layout.append_jsonl(path, [{"x": 3}])
    assert [r["x"] for r in layout.read_jsonl(path)] == [1, 2, 3]


@pytest.mark.parametrize("tail", [b'{"x": 3', b'{"x"', b"{"])
def test_torn_tail_is_cut_off_on_repair(tmp_path, tail):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"x": 1}\n{"x": 2}\n' + tail)
    with pytest.raises(DataError, match="incomplete"):
        layout.read_jsonl(path)
    assert [r["x"] for r in layout.read_jsonl(path, repair=True)] == [1, 2]
    assert path.read_bytes() == b'{"x": 1}\n{"x": 2}\n'


def test_torn_only_line_leaves_empty_file(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"x": 1')
    assert layout.read_jsonl(path, repair=True) == []
    assert path.read_bytes() == b""


def test_corrupt_middle_line_names_file_and_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"x": 1}\nnot json\n{"x": 3}\n')
    with pytest.raises(DataError, match=r"log.jsonl:2"):
        layout.read_jsonl(path, repair=True)


def _header(**over):
    h = {"sampling": {"n": 2, "temperature": 1.0}, "verifier_version": "1", "backend": "hf",
         "ks": [1], "tasks": {"math500": {"spec_hash": "a", "prompt_hash": "p", "data_hash": "d", "limit": 5}}}
    h.update(over)
    return h


def test_merge_header_accepts_new_tasks_and_refuses_changed_settings():
    old = _header()
    new = _header(tasks={"gsm8k": {"spec_hash": "b", "prompt_hash": "q", "data_hash": "e", "limit": 5}}, ks=[1, 2])
    merged = layout.merge_header(old, new)
    assert set(merged["tasks"]) == {"math500", "gsm8k"} and merged["ks"] == [1, 2]
    with pytest.raises(ConfigError, match="sampling differs"):
        layout.merge_header(old, _header(sampling={"n": 4, "temperature": 1.0}))
    changed = _header(tasks={"math500": {"spec_hash": "a", "prompt_hash": "CHANGED", "data_hash": "d", "limit": 5}})
    with pytest.raises(ConfigError, match="prompt_hash"):
        layout.merge_header(old, changed)


def test_merging_a_run_with_the_same_settings_leaves_the_header_as_it_was():
    """Re-running a study into its own (e.g. committed) directory must rewrite study.json byte for byte:
    the merge adds no key the fresh header lacks."""
    header = _header()
    assert layout.merge_header(header, _header()) == header


def test_study_lock_refuses_a_second_holder(tmp_path):
    with layout.study_lock(tmp_path), pytest.raises(ConfigError, match="in use"):
        with layout.study_lock(tmp_path):
            pass
    with layout.study_lock(tmp_path):  # released
        pass


def test_write_json_is_atomic_and_readable(tmp_path):
    path = tmp_path / "h.json"
    layout.write_json(path, {"a": [1, 2]})
    assert json.loads(path.read_text()) == {"a": [1, 2]} and not list(tmp_path.glob("*.tmp"))
