"""--checkpoints items beyond local paths: hub ids from an offline HF cache, NAME=PATH, served
names, bundled assets; and Ray jobs get absolute paths."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kleval.eval.sources import resolve_checkpoints
from kleval.errors import CheckpointError
from kleval.resources import bundled

REVISION = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture()
def hub_cache(tmp_path) -> Path:
    """The Hugging Face cache layout (models--org--name/snapshots/<rev>/ + refs/main) holding the
    committed tiny model under the id kleval-test/tiny-arith."""
    cache = tmp_path / "hub"
    repo = cache / "models--kleval-test--tiny-arith"
    snapshot = repo / "snapshots" / REVISION
    shutil.copytree(bundled("assets/tiny-arith-base"), snapshot)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(REVISION)
    return cache


def test_hub_id_resolves_from_the_local_cache_offline(hub_cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    [ckpt] = resolve_checkpoints(["kleval-test/tiny-arith"], cache_dir=hub_cache)
    assert ckpt.path.resolve() == (hub_cache / "models--kleval-test--tiny-arith" / "snapshots" / REVISION).resolve()
    assert ckpt.label == "tiny-arith" and ckpt.run == "kleval-test/tiny-arith"
    [pinned] = resolve_checkpoints([f"kleval-test/tiny-arith@{REVISION}"], cache_dir=hub_cache)
    assert pinned.path == ckpt.path


def test_hub_id_missing_from_the_cache_offline_says_so(hub_cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CheckpointError, match="not in the local Hugging Face cache"):
        resolve_checkpoints(["kleval-test/not-there"], cache_dir=hub_cache)
    with pytest.raises(CheckpointError, match="does not exist"):
        resolve_checkpoints(["./no/such/dir"], cache_dir=hub_cache)


def test_hub_id_with_openai_backend_is_served_under_its_id(hub_cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    [ckpt] = resolve_checkpoints(["kleval-test/tiny-arith"], backend="openai", cache_dir=hub_cache)
    assert str(ckpt.path) == "kleval-test/tiny-arith" and ckpt.format == "served"
    assert Path(ckpt.tokenizer_path).name == REVISION  # the cached tokenizer templates chat prompts


def test_hub_id_through_the_command_line(hub_cache, tmp_path):
    """The whole path: `kleval eval --checkpoints org/name` offline, the cache named by HF_HUB_CACHE."""
    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(os.environ, PYTHONPATH=str(src), HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(hub_cache))
    run = subprocess.run([sys.executable, "-m", "kleval", "eval", "--checkpoints", "kleval-test/tiny-arith",
                          "--tasks", "arith_add", "--limit", "3", "--max-tokens", "6", "--temperature", "0",
                          "--out", str(tmp_path / "study"), "--no-progress", "--device", "cpu"],
                         env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "tiny-arith" in run.stdout


def test_bundled_asset_path_works_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    [ckpt] = resolve_checkpoints(["assets/tiny-arith-base"])
    assert ckpt.path == bundled("assets/tiny-arith-base") and ckpt.label == "tiny-arith-base"


def test_ray_jobs_carry_absolute_paths(tmp_path, monkeypatch):
    from kleval.eval.distributed import with_absolute_paths

    model = tmp_path / "runs" / "model"
    shutil.copytree(bundled("assets/tiny-arith-base"), model)
    monkeypatch.chdir(tmp_path)
    [ckpt] = resolve_checkpoints(["runs/model"])
    assert not ckpt.path.is_absolute()
    shipped = with_absolute_paths(ckpt)
    assert shipped.path == model.resolve() and Path(shipped.tokenizer_path) == model.resolve()
    assert shipped.label == ckpt.label
    [served] = resolve_checkpoints(["some/served-model"], backend="openai")
    assert with_absolute_paths(served) == served  # names that are not paths travel unchanged
