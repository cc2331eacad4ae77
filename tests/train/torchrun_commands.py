"""Test helper: run several `kleval` commands, in order, inside one torchrun process group.

Usage: python -m torch.distributed.run ... tests/train/torchrun_commands.py '[["train", ...], ...]'
One launch instead of one per command saves the interpreter and import start-up of every rank.
"""
import json
import sys

from kleval.cli import main

if __name__ == "__main__":
    for argv in json.loads(sys.argv[1]):
        code = main(argv)
        if code:
            sys.exit(code)
