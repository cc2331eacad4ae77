"""Files that ship with kleval: task specs (tasks/), study specs (evals/) and the tiny model (assets/).

In a checkout they live at the repository root, where users and docs expect them; the package
reaches them through the symlinks in `src/kleval/_bundled/`, and a wheel (`pip install .`, not
editable) carries copies of them there as package data. Either way `importlib.resources` finds
them, so nothing here depends on where the source file sits relative to the repository.

Relative paths a user types (`--config evals/ci.toml`, `assets/tiny-arith-base` in a study spec)
mean the working directory first; when nothing is there, the bundled copy of the same path is
used, so the documented commands also work from any directory after a plain install.
"""
from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

BUNDLED_ROOTS = ("tasks", "evals", "assets")


def bundled_root() -> Path:
    """The directory that holds the bundled tasks/, evals/ and assets/ (a real path on disk)."""
    root = resources.files("kleval") / "_bundled"
    # kleval is installed as plain files (wheel or editable), never zipped: the Traversable is a Path.
    return Path(os.fspath(root))


def bundled(relative: str | os.PathLike[str]) -> Path | None:
    """The bundled file or directory at `relative` (e.g. "tasks", "assets/tiny-arith-base"), or None."""
    parts = Path(relative).parts
    if not parts or Path(relative).is_absolute() or parts[0] not in BUNDLED_ROOTS or ".." in parts:
        return None
    path = bundled_root().joinpath(*parts)
    return path if path.exists() else None


def locate(path: str | os.PathLike[str]) -> Path:
    """`path` itself when it exists (relative to the working directory), else its bundled copy,
    else `path` unchanged (so the caller's own "does not exist" message names what was typed)."""
    candidate = Path(path).expanduser()
    if candidate.exists():
        return candidate
    return bundled(candidate) or candidate


def study_spec(name_or_path: str | os.PathLike[str]) -> Path:
    """A study spec from a path (`evals/ci.toml`, `./my.toml`) or a bundled name (`ci`)."""
    text = str(name_or_path)
    found = locate(text)
    if found.exists():
        return found
    if not text.endswith(".toml") and "/" not in text and os.sep not in text:
        return bundled(f"evals/{text}.toml") or found
    return found


def list_study_specs() -> list[str]:
    """Names of the bundled study specs (`kleval eval --config NAME`)."""
    directory = bundled("evals")
    return sorted(p.stem for p in directory.glob("*.toml")) if directory else []
