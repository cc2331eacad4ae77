"""Study settings: one set of defaults; a study spec TOML drives the CLI and the Python API alike."""
from __future__ import annotations

import pytest

from kleval.errors import ConfigError
from kleval.eval.spec import DEFAULTS, build_eval_spec, load_study_spec, resolve_settings
from kleval.types import SamplingParams


def test_sampling_defaults_are_sampling_params_own():
    assert DEFAULTS["max_tokens"] == SamplingParams().max_tokens == 2048
    spec = build_eval_spec(resolve_settings(None, {"checkpoints": ["m"], "tasks": "gsm8k,math500", "out": "o"}))
    assert spec.sampling == SamplingParams() and spec.tasks == ("gsm8k", "math500")


def test_spec_file_then_explicit_settings(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('description = "x"\ncheckpoints = ["a"]\ntasks = ["gsm8k"]\nout = "s"\nn = 4\nk = [1, 4]\n')
    settings = resolve_settings(path, {"n": 8, "seed": None})
    assert (settings["n"], settings["k"], settings["seed"]) == (8, [1, 4], 0)
    with pytest.raises(ConfigError, match="unknown keys"):
        path.write_text('tasks = ["gsm8k"]\nbogus = 1\n')
        load_study_spec(path)
    with pytest.raises(ConfigError, match="--out is required"):
        resolve_settings(None, {"checkpoints": ["a"], "tasks": ["gsm8k"]})


def test_python_api_runs_a_study_spec(tiny_checkpoint, tmp_path, monkeypatch):
    import kleval
    import kleval.backends
    from kleval.types import Completion

    class Backend:
        def generate(self, prompts, params, chat=False):
            return [[Completion("12", 1, 2, "stop")] * params.n for _ in prompts]

        def close(self):
            pass

    monkeypatch.setattr(kleval.backends, "make_backend", lambda *a, **k: Backend())
    path = tmp_path / "paper.toml"
    path.write_text(f'checkpoints = ["{tiny_checkpoint}"]\ntasks = ["arith_add"]\nout = "{tmp_path / "s"}"\n'
                    'n = 2\nlimit = 3\n')
    frame = kleval.evaluate(config=path, limit=2)
    assert list(frame["task"]) == ["arith_add"] and int(frame["num_problems"].iloc[0]) == 2
    assert (tmp_path / "s" / "results.csv").is_file()
