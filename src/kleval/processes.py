"""Start worker processes from a user's script without the script running again in each worker.

kleval's workers (the grading pool, vLLM data-parallel engines) are started with the "spawn"
method: fork is unsafe beside torch's threads. A spawned child first imports the parent's
`__main__` module (as `__mp_main__`) so that functions defined there can be unpickled. For a
script that calls `kleval.evaluate(...)` at top level without an `if __name__ == "__main__":`
guard, that import runs the evaluation again inside the child, which then tries to start its own
workers and dies with a wall of tracebacks. kleval's worker entry points live in kleval's own
modules and never need the user's `__main__`, so while kleval starts workers the main module is
presented to multiprocessing as if it were interactive (no file, no module spec); child processes
then skip the import. Everything else about `__main__` is untouched and restored on exit.
"""
from __future__ import annotations

import contextlib
import sys
import threading
from typing import Iterator

_MISSING = object()
_lock = threading.RLock()
_depth = 0
_saved: dict[str, object] = {}


@contextlib.contextmanager
def main_module_not_reimported() -> Iterator[None]:
    """Within this block, spawned children do not import the parent's `__main__` script.

    Re-entrant and thread-safe (nested or concurrent uses restore the module once, at the end).
    """
    global _depth
    main = sys.modules.get("__main__")
    with _lock:
        if _depth == 0 and main is not None:
            _saved.clear()
            for name in ("__file__", "__spec__"):
                _saved[name] = main.__dict__.get(name, _MISSING)
            main.__dict__.pop("__file__", None)
            main.__dict__["__spec__"] = None
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and main is not None:
                for name, value in _saved.items():
                    if value is _MISSING:
                        main.__dict__.pop(name, None)
                    else:
                        main.__dict__[name] = value
                _saved.clear()
