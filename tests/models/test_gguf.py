"""The GGUF cache: keyed by content, written atomically, refusing non-GGUF files (no real model needed).

The conversion itself (transformers dequantizing a real file) runs in tests/real/; here it is
replaced by a stand-in that writes a few files, so the cache's bookkeeping is tested in isolation.
"""
from __future__ import annotations

import json

import pytest

from kleval.errors import CheckpointError
from kleval.models import gguf


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KLEVAL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "gguf"


def _fake_gguf(path, payload: bytes = b"weights"):
    path.write_bytes(gguf.GGUF_MAGIC + payload)
    return path


def _stand_in(calls):
    def convert_into(source, out_dir, *, dtype, quiet):
        calls.append(source.name)
        (out_dir / "config.json").write_text("{}")
        (out_dir / "model.safetensors").write_bytes(b"x")
    return convert_into


def test_cache_root_follows_env(cache):
    assert gguf.cache_root() == cache


def test_converts_once_and_reuses_by_content(tmp_path, cache, monkeypatch):
    calls = []
    monkeypatch.setattr(gguf, "_convert_into", _stand_in(calls))
    first = gguf.convert_gguf(_fake_gguf(tmp_path / "a.gguf"), quiet=True)
    again = gguf.convert_gguf(tmp_path / "a.gguf", quiet=True)
    renamed = gguf.convert_gguf(_fake_gguf(tmp_path / "copy.gguf"), quiet=True)  # same bytes, other name
    other = gguf.convert_gguf(_fake_gguf(tmp_path / "b.gguf", b"other weights"), quiet=True)
    assert calls == ["a.gguf", "b.gguf"]
    assert first == again == renamed != other
    assert first.parent == cache and first.name == gguf.file_sha256(tmp_path / "a.gguf")
    assert gguf.converted_from(first) == "a"
    assert json.loads((first / gguf.MARKER).read_text())["cache_format"] == gguf.CACHE_FORMAT


def test_killed_conversion_leaves_nothing(tmp_path, cache, monkeypatch):
    def dies_halfway(source, out_dir, *, dtype, quiet):
        (out_dir / "model.safetensors").write_bytes(b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr(gguf, "_convert_into", dies_halfway)
    with pytest.raises(KeyboardInterrupt):
        gguf.convert_gguf(_fake_gguf(tmp_path / "a.gguf"), quiet=True)
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".lock")] == []
    calls = []
    monkeypatch.setattr(gguf, "_convert_into", _stand_in(calls))
    entry = gguf.convert_gguf(tmp_path / "a.gguf", quiet=True)
    assert calls == ["a.gguf"] and (entry / gguf.MARKER).is_file()


def test_entry_without_marker_or_old_format_is_redone(tmp_path, cache, monkeypatch):
    source = _fake_gguf(tmp_path / "a.gguf")
    stale = cache / gguf.file_sha256(source)
    stale.mkdir(parents=True)
    (stale / "model.safetensors").write_bytes(b"left over")
    calls = []
    monkeypatch.setattr(gguf, "_convert_into", _stand_in(calls))
    entry = gguf.convert_gguf(source, quiet=True)
    assert calls == ["a.gguf"] and not (entry / "model.safetensors").read_bytes() == b"left over"
    record = json.loads((entry / gguf.MARKER).read_text())
    (entry / gguf.MARKER).write_text(json.dumps({**record, "cache_format": gguf.CACHE_FORMAT - 1}))
    assert gguf.converted_from(entry) is None
    gguf.convert_gguf(source, quiet=True)
    assert calls == ["a.gguf", "a.gguf"]


def test_refuses_files_that_are_not_gguf(tmp_path, cache):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"PK\x03\x04 not a gguf")
    assert not gguf.is_gguf_file(fake) and not gguf.is_gguf_file(tmp_path / "missing.gguf")
    with pytest.raises(CheckpointError, match="not a GGUF file"):
        gguf.convert_gguf(fake, quiet=True)


def test_discover_labels_a_gguf_file_by_its_name(tmp_path, cache, monkeypatch):
    from kleval.eval.checkpoints import discover

    def writes_a_checkpoint(source, out_dir, *, dtype, quiet):
        (out_dir / "config.json").write_text('{"model_type": "llama"}')
        (out_dir / "model.safetensors").write_bytes(b"x")
        (out_dir / "tokenizer.json").write_text("{}")

    monkeypatch.setattr(gguf, "_convert_into", writes_a_checkpoint)
    source = _fake_gguf(tmp_path / "My-Model.Q4_K_M.gguf")
    (found,) = discover([str(source)])
    assert (found.format, found.label, found.step) == ("gguf", "My-Model.Q4_K_M", None)
    assert found.path == cache / gguf.file_sha256(source)
    (again,) = discover([str(found.path)])  # the converted directory itself
    assert (again.format, again.label) == ("gguf", "My-Model.Q4_K_M")
    (globbed,) = discover([str(tmp_path / "*.gguf")])
    assert globbed.path == found.path


def test_broken_gguf_is_a_one_line_checkpoint_error(tmp_path, cache):
    pytest.importorskip("gguf")
    with pytest.raises(CheckpointError, match="cannot load this GGUF file"):
        gguf.convert_gguf(_fake_gguf(tmp_path / "broken.gguf", b"\x03\x00\x00\x00garbage"), quiet=True)
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".lock")] == []
