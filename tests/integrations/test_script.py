"""The README's Python snippet as a script: `kleval.evaluate(...)` at top level, no main guard."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import kleval

    print("script body ran", flush=True)  # a spawned worker that re-ran the script would print this again
    df = kleval.evaluate("assets/tiny-arith-base", ["arith_add"], n=1, limit=4, max_tokens=8,
                         temperature=0.0, out="study", progress=False, device="cpu")
    print("rows", len(df), "pass@1", float(df["pass@1"].iloc[0]), flush=True)
""")


def test_evaluate_at_top_level_of_a_script_without_main_guard(tmp_path):
    script = tmp_path / "evaluate_tiny.py"
    script.write_text(SCRIPT, encoding="utf-8")
    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")])),
               HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.count("script body ran") == 1, run.stdout
    assert "rows 1 pass@1" in run.stdout
    assert "Traceback" not in run.stderr and "bootstrapping phase" not in run.stderr, run.stderr[-3000:]
    assert (tmp_path / "study" / "results.csv").is_file()
    # the script's module is untouched afterwards (the guard restores __main__)
    check = subprocess.run([sys.executable, "-c", ("import sys, kleval.processes as p\n"
                             "m = sys.modules['__main__']\nwith p.main_module_not_reimported():\n"
                             "    assert m.__spec__ is None and not hasattr(m, '__file__')\n"
                             "print(getattr(m, '__file__', 'none'))")], env=env, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
