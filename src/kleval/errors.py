"""Exceptions that mean the user's input is wrong; the CLI prints them as one line and exits 2."""


class KlevalError(Exception):
    """Base class for errors caused by bad input (files, configs, arguments), not by bugs."""


class DataError(KlevalError):
    """A data file is missing or holds a malformed row; the message names the file and line."""


class CheckpointError(KlevalError):
    """A checkpoint directory is missing, incomplete or unreadable."""


class ConfigError(KlevalError, ValueError):
    """A task spec, study spec or command-line setting is invalid or inconsistent (also a
    ValueError, so library callers that validate values catch it as one)."""
