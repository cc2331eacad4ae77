"""The `kleval` command line: one subcommand per module in `kleval.commands`, loaded lazily.

Each module in `kleval.commands` defines `HELP` (one line), `add_arguments(parser)` and
`run(args) -> int`. Command modules import only the standard library at top level so that
`kleval --help` stays instant; heavy imports happen inside `run`.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import pkgutil
import sys

from kleval import __version__
from kleval.errors import KlevalError


_ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


def _command_modules() -> list[str]:
    import kleval.commands as pkg

    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kleval",
        description="Evaluate checkpoints and train with explicit KL configurations.",
    )
    parser.add_argument("--version", action="version", version=f"kleval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _command_modules():
        module = importlib.import_module(f"kleval.commands.{name}")
        cmd = getattr(module, "NAME", name.replace("_", "-"))
        p = sub.add_parser(cmd, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def silence_progress_bars() -> None:
    """No progress bar from any library (`--no-progress`): kleval's own bars take the flag; the
    Hugging Face libraries (transformers' "Loading weights", hub downloads, datasets) and any other
    tqdm user read these switches, set in the environment for modules not imported yet and
    through their functions for modules already imported."""
    import os

    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["TQDM_DISABLE"] = "1"
    if "huggingface_hub" in sys.modules:
        sys.modules["huggingface_hub"].utils.disable_progress_bars()
    if "transformers" in sys.modules:
        importlib.import_module("transformers.utils.logging").disable_progress_bar()
    if "datasets" in sys.modules:
        sys.modules["datasets"].disable_progress_bars()


@contextlib.contextmanager
def progress_bars_silenced(silence: bool = True):
    """No Hugging Face progress bar during a block (the Python API), then each library's previous
    state back, so a notebook's own bars keep working. Uses the libraries' switches only: the
    environment variables are read once at import and would silence them for good."""
    if not silence:
        yield
        return
    import huggingface_hub.utils as hub_utils
    import transformers.utils.logging as transformers_logging

    hub_was_on = not hub_utils.are_progress_bars_disabled()
    transformers_was_on = transformers_logging.is_progress_bar_enabled()
    hub_utils.disable_progress_bars()
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if hub_was_on:
            hub_utils.enable_progress_bars()
        if transformers_was_on:
            transformers_logging.enable_progress_bar()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0
    if getattr(args, "no_progress", False):
        silence_progress_bars()
    try:
        return int(args._run(args) or 0)
    except KlevalError as exc:
        print(f"kleval {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the machine, not kleval: a full disk, a read-only or forbidden --out
        if exc.errno not in _ENVIRONMENT_ERRNOS:
            raise
        where = f": {exc.filename}" if exc.filename else ""
        print(f"kleval {args.command}: error: {exc.strerror or exc}{where}; free space or fix permissions, then "
              "rerun the same command (finished work is kept)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"kleval {args.command}: interrupted; finished work is kept, rerun to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
