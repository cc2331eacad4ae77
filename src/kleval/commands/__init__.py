"""Subcommands of the `kleval` CLI, one module each (see kleval.cli)."""
