"""The evaluation path: checkpoint discovery, trainer configs, the runner, the study directory,
results, distributed runs and rescoring (see docs/study-layout.md)."""
