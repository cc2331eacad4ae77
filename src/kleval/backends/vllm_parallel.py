"""Data parallelism for the vLLM backend: one engine process per GPU group, prompts split evenly.

Because each prompt carries its own seed, splitting prompts across workers changes no sample;
results come back in prompt order. Workers are spawned (not forked) so each sees only its own
GPUs through CUDA_VISIBLE_DEVICES before vLLM is imported.
"""
from __future__ import annotations

import multiprocessing
import os
from typing import Any

from kleval.errors import KlevalError
from kleval.types import SamplingParams


def _worker(devices: str, engine_kwargs: dict[str, Any], conn) -> None:
    os.environ["CUDA_VISIBLE_DEVICES"] = devices
    try:
        import vllm

        from kleval.backends.vllm import run_requests

        llm = vllm.LLM(**engine_kwargs)
        conn.send(("ready", None))
    except Exception as exc:  # reported to the parent, which raises it there
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    while True:
        message = conn.recv()
        if message is None:
            return
        token_prompts, seeds, params_dict = message
        try:
            params = SamplingParams(**{**params_dict, "stop": tuple(params_dict["stop"])})
            conn.send(("ok", run_requests(llm, token_prompts, seeds, params)))
        except Exception as exc:  # reported to the parent, which raises it there
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


class DataParallelPool:
    """A fixed set of vLLM worker processes, one per group of tensor_parallel_size GPUs."""

    def __init__(self, engine_kwargs: dict[str, Any], data_parallel_size: int, tensor_parallel_size: int):
        from kleval.backends.vllm import visible_device_groups
        from kleval.processes import main_module_not_reimported

        context = multiprocessing.get_context("spawn")
        self.workers = []
        for devices in visible_device_groups(data_parallel_size, tensor_parallel_size):
            parent, child = context.Pipe()
            process = context.Process(target=_worker, args=(devices, engine_kwargs, child), daemon=True)
            with main_module_not_reimported():  # a user's unguarded script must not run again in the worker
                process.start()
            self.workers.append((process, parent))
        for _, conn in self.workers:
            status, detail = conn.recv()
            if status != "ready":
                self.close()
                raise KlevalError(f"a vLLM data-parallel worker failed to start: {detail}")

    def run(self, token_prompts: list[list[int]], seeds: list[int], params: SamplingParams):
        """Split prompts into contiguous shares, one per worker, and gather results in order."""
        count = len(self.workers)
        bounds = [len(token_prompts) * i // count for i in range(count + 1)]
        busy = []
        for i, (_, conn) in enumerate(self.workers):
            share = slice(bounds[i], bounds[i + 1])
            if bounds[i] < bounds[i + 1]:  # vLLM refuses an empty request list
                conn.send((token_prompts[share], seeds[share], params.to_dict()))
                busy.append(conn)
        results = []
        for conn in busy:
            status, payload = conn.recv()
            if status != "ok":
                raise KlevalError(f"a vLLM data-parallel worker failed: {payload}")
            results.extend(payload)
        return results

    def close(self) -> None:
        for process, conn in self.workers:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass  # the worker is already gone
            process.join(timeout=30)
            if process.is_alive():
                process.terminate()
        self.workers = []
