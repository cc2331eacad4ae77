"""Progress and noise: --no-progress silences every bar (transformers' included), training prints
no deprecation warning, the demo's RL sweep shows a bar of its own, every flag has help text."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from kleval.cli import build_parser

SRC = Path(__file__).resolve().parents[2] / "src"
ENV = dict(os.environ, PYTHONPATH=str(SRC), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
ENV.pop("TQDM_DISABLE", None)
ENV.pop("HF_HUB_DISABLE_PROGRESS_BARS", None)


def _kleval(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kleval", *argv], env=ENV, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _has_bar(text: str) -> bool:
    return "%|" in text or "it/s]" in text


def test_eval_no_progress_prints_no_bar_at_all(tmp_path):
    quiet = _kleval("eval", "--config", "ci", "--limit", "3", "--out", "quiet", "--no-progress", cwd=tmp_path)
    assert quiet.returncode == 0, quiet.stderr[-2000:]
    assert not _has_bar(quiet.stderr) and "Loading weights" not in quiet.stderr, quiet.stderr[-2000:]
    loud = _kleval("eval", "--config", "ci", "--limit", "3", "--out", "loud", cwd=tmp_path)
    assert loud.returncode == 0 and _has_bar(loud.stderr)  # the same run does draw bars without the flag


def test_train_is_quiet_and_warning_free(tmp_path):
    run = _kleval("train", "--tiny", "--preset", "k3-loss", "--steps", "2", "--prompts-per-step", "4",
                  "--samples-per-prompt", "2", "--save-every", "2", "--out", "run", "--no-progress", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    output = run.stdout + run.stderr
    assert not _has_bar(output) and "Writing model shards" not in output, output[-2000:]
    assert "deprecated" not in output.lower(), output[-2000:]


def test_rl_sweep_shows_its_own_progress(tmp_path):
    code = ("from kleval.train.tiny import train_sweep\n"
            "train_sweep(['k3-loss', 'none'], [0], 'runs', steps=3, workers=2, progress=True)\n")
    run = subprocess.run([sys.executable, "-c", code], env=ENV, cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    bar = run.stderr.replace("\r", "\n")
    assert "RL 2 runs" in bar and "6/6" in bar, bar[-2000:]
    assert "Writing model shards" not in bar and "Loading weights" not in bar, bar[-2000:]  # one bar, unbroken


def test_python_dash_m_kleval(tmp_path):
    run = _kleval("--help", cwd=tmp_path)
    assert run.returncode == 0 and "usage: kleval" in run.stdout


def _options(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from ((f"{name} {flag}", help_) for flag, help_ in _options(sub))
        elif action.option_strings and not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield action.option_strings[-1], action.help


def test_every_flag_of_every_command_has_help():
    missing = [flag for flag, text in _options(build_parser()) if not text or text == argparse.SUPPRESS]
    assert not missing, f"flags without help text: {missing}"


def test_api_silences_bars_only_during_the_call(tmp_path, monkeypatch):
    """progress=False: no "Loading weights" bar from the evaluation, and the libraries' bars are
    switched back on afterwards (a notebook keeps its own progress bars)."""
    code = ("import kleval, huggingface_hub.utils as h, transformers.utils.logging as t\n"
            "kleval.evaluate('assets/tiny-arith-base', 'arith_add', limit=2, max_tokens=4, out='s', progress=False,"
            " device='cpu')\n"
            "print('after', h.are_progress_bars_disabled(), t.is_progress_bar_enabled())\n")
    run = subprocess.run([sys.executable, "-c", code], env=ENV, cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert not _has_bar(run.stderr) and "Loading weights" not in run.stderr, run.stderr[-2000:]
    assert "after False True" in run.stdout
