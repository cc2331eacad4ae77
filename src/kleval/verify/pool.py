"""`VerifierPool`: verify many items in worker processes with a hard per-item wall-clock limit.

Why processes and kill, not signals: signal timeouts break in threads and cannot stop C code
stuck in sympy/gmpy; a separate process can always be killed. A worker that hangs past the
limit or dies is killed and replaced; its current item gets Status.TIMEOUT and the rest of its
chunk goes to the new worker. Items travel in chunks (one pipe round trip per chunk, one reply
per item so the parent knows when each item started) and neighbouring items share a worker, so
the worker's cache of parsed golds is hit for the n samples of one problem.

The limit is a last resort: size guards in kleval.verify.canonical keep verdicts independent of
machine load, and the default limit is generous.
"""
from __future__ import annotations

import collections
import importlib
import multiprocessing
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any, Callable, Iterable

from kleval.types import Status, Verdict
from kleval.verify.policy import Policy

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_CHUNK = 32
STARTUP_S = 120.0


@dataclass(frozen=True)
class VerifyItem:
    """One grading request, the same arguments as kleval.verify.verify."""

    gold: str
    completion: str
    kind: str = "math"
    policy: "str | Policy" = "default"


def debug_slow_verify(*, gold: str, completion: str, kind: str, policy: Any) -> Verdict:
    """For tests of the time limit only: sleeps `float(gold)` seconds; completion "crash" exits."""
    import os

    if completion == "crash":
        os._exit(3)
    time.sleep(float(gold) if gold.replace(".", "", 1).isdigit() else 0.0)
    return Verdict(Status.CORRECT, completion, gold, completion, "debug-sleep", "slept")


def _resolve(path: str) -> Callable[..., Verdict]:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _worker_main(conn, verify_path: str) -> None:
    """Worker loop: receive a chunk [(index, item), ...], reply (index, verdict dict) per item."""
    verify_fn = _resolve(verify_path)
    # Warm up imports and the LaTeX parser before reporting ready, so start-up never counts
    # against the first item's time limit.
    verify_fn(gold="\\frac{1}{2}", completion="\\boxed{x+1}", kind="math", policy="default")
    conn.send(("ready", None))
    while True:
        try:
            chunk = conn.recv()
        except EOFError:
            return
        if chunk is None:
            return
        for index, item in chunk:
            verdict = verify_fn(gold=item.gold, completion=item.completion, kind=item.kind, policy=item.policy)
            conn.send((index, verdict.to_dict()))


class _Job:
    def __init__(self, items: list[VerifyItem], future: Future):
        self.items = items
        self.results: list[Verdict | None] = [None] * len(items)
        self.remaining = len(items)
        self.future = future

    def finish(self, index: int, verdict: Verdict) -> None:
        if self.results[index] is None:
            self.results[index] = verdict
            self.remaining -= 1
            if self.remaining == 0 and not self.future.done():
                self.future.set_result(self.results)


class _Worker:
    def __init__(self, context, verify_path: str):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child, verify_path), daemon=True)
        self.process.start()
        child.close()
        self.pending: collections.deque[tuple[_Job, int]] = collections.deque()  # in flight, in order
        self.item_started = 0.0
        self.ready = False
        self.spawned = time.monotonic()

    def send(self, job: _Job, indices: list[int]) -> None:
        if not self.pending:
            self.item_started = time.monotonic()
        self.pending.extend((job, i) for i in indices)
        self.conn.send([(i, job.items[i]) for i in indices])

    def kill(self) -> None:
        self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class VerifierPool:
    """A context manager over `workers` verifier processes with a per-item limit of `timeout_s`."""

    def __init__(
        self,
        workers: int = 2,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        *,
        chunk_size: int = DEFAULT_CHUNK,
        verify_fn: str = "kleval.verify.core:verify",
    ):
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        self.workers, self.timeout_s, self.chunk_size, self.verify_fn = workers, timeout_s, chunk_size, verify_fn
        self._context = multiprocessing.get_context("spawn")  # fork is unsafe beside torch threads
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._pool: list[_Worker] = []
        self.restarts = 0

    def __enter__(self) -> "VerifierPool":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        if self._thread is None:
            self._pool = [_Worker(self._context, self.verify_fn) for _ in range(self.workers)]
            self._thread = threading.Thread(target=self._dispatch, name="kleval-verifier", daemon=True)
            self._thread.start()

    def submit(self, items: Iterable[VerifyItem]) -> "Future[list[Verdict]]":
        """Queue items and return at once; `.result()` gives their verdicts in input order."""
        self.start()
        future: Future = Future()
        items = list(items)
        if not items:
            future.set_result([])
        else:
            self._jobs.put(_Job(items, future))
        return future

    def map(self, items: Iterable[VerifyItem]) -> list[Verdict]:
        return self.submit(items).result()

    def close(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join()
            self._thread = None
        for worker in self._pool:
            try:
                worker.conn.send(None)
            except (BrokenPipeError, OSError):
                pass  # already dead; kill below is enough
            worker.process.join(timeout=2)
            if worker.process.is_alive():
                worker.kill()
        self._pool = []

    # -- the dispatcher thread -----------------------------------------------------------------

    def _replace(self, worker: _Worker, reason: str) -> None:
        """Kill a hung or dead worker, fail its current item with TIMEOUT, requeue the rest."""
        worker.kill()
        self.restarts += 1
        pending = list(worker.pending)
        if pending:
            job, index = pending[0]
            job.finish(index, Verdict(Status.TIMEOUT, None, None, None, "pool", reason))
            for job, index in reversed(pending[1:]):
                self._chunks.appendleft((job, [index]))
        fresh = _Worker(self._context, self.verify_fn)
        self._pool[self._pool.index(worker)] = fresh

    def _take_jobs(self, block: bool) -> bool:
        """Move queued jobs into chunks; False when close() was requested."""
        while True:
            try:
                job = self._jobs.get(block=block, timeout=None)
            except queue.Empty:
                return True
            if job is None:
                return False
            indices = list(range(len(job.items)))
            size = max(1, min(self.chunk_size, -(-len(indices) // self.workers)))
            for start in range(0, len(indices), size):
                self._chunks.append((job, indices[start : start + size]))
            block = False

    def _await_ready(self, starting: list[_Worker]) -> None:
        """Collect start-up messages; a worker that cannot start within STARTUP_S is a real error."""
        ready = wait([w.conn for w in starting], timeout=0 if any(w.ready for w in self._pool) else 0.05)
        for worker in starting:
            if worker.conn in ready:
                try:
                    message, _ = worker.conn.recv()
                except (EOFError, OSError) as exc:
                    raise RuntimeError("verifier worker failed to start; run kleval.verify.verify in process to see why") from exc
                worker.ready = message == "ready"
            elif time.monotonic() - worker.spawned > STARTUP_S:
                raise RuntimeError(f"verifier worker did not start within {STARTUP_S:g} s")

    def _dispatch(self) -> None:
        self._chunks: collections.deque = collections.deque()
        try:
            self._dispatch_loop()
        except BaseException as exc:  # the futures must learn of it, or callers would wait forever
            self._fail_all(exc)
            raise

    def _fail_all(self, exc: BaseException) -> None:
        jobs = {id(job): job for job, _ in self._chunks}
        jobs.update({id(job): job for w in self._pool for job, _ in w.pending})
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                jobs[id(job)] = job
        for job in jobs.values():
            if not job.future.done():
                job.future.set_exception(exc)

    def _dispatch_loop(self) -> None:
        running = True
        while running or self._chunks or any(w.pending for w in self._pool):
            busy = [w for w in self._pool if w.pending]
            if running:
                running = self._take_jobs(block=not busy and not self._chunks)
            starting = [w for w in self._pool if not w.ready]
            if starting and self._chunks:
                self._await_ready(starting)
            for worker in self._pool:
                # Keep up to two chunks in flight per worker so it never idles during a round trip.
                while worker.ready and len(worker.pending) < self.chunk_size and self._chunks:
                    job, indices = self._chunks.popleft()
                    try:
                        worker.send(job, indices)
                    except (BrokenPipeError, OSError):
                        worker.pending.extend((job, i) for i in indices)
                        self._replace(worker, "verifier worker died before receiving work")
                        break
            busy = [w for w in self._pool if w.pending]
            if not busy:
                continue
            now = time.monotonic()
            wait_s = max(0.0, min(w.item_started + self.timeout_s - now for w in busy))
            ready = wait([w.conn for w in busy], timeout=min(wait_s, 0.05))
            for worker in busy:
                if worker.conn in ready:
                    try:
                        index, verdict = worker.conn.recv()
                    except (EOFError, OSError):
                        self._replace(worker, "verifier worker died (killed or crashed) on this item")
                        continue
                    job, _ = worker.pending.popleft()
                    job.finish(index, Verdict.from_dict(verdict))
                    worker.item_started = time.monotonic()
                elif time.monotonic() - worker.item_started > self.timeout_s:
                    self._replace(worker, f"verification exceeded {self.timeout_s:g} s; worker killed")
