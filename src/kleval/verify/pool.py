"""`VerifierPool`: verify many items in worker processes with a hard per-item wall-clock limit.

Why processes and kill, not signals: signal timeouts break in threads and cannot stop C code
stuck in sympy/gmpy; a separate process can always be killed.

Why no grading can hang: the thread that enforces the limit (the dispatcher) never touches a
pipe. Each worker has two one-way pipes, and in the parent one writer thread and one reader
thread per worker do all the blocking I/O; they report to the dispatcher through one event
queue, which it reads with a deadline (the earliest item limit). A worker that is busy writing
long verdicts therefore can never block the parent while the parent feeds it long completions
(the deadlock of a single shared pipe), and a worker past its limit is killed on time whatever
its pipes are doing; killing it ends its I/O threads (EOF / broken pipe).

Outcomes per item: the verifier's verdict; Status.TIMEOUT when the item exceeded the limit (the
worker is killed and replaced; the rest of its chunk goes to other workers); Status.CRASH when
the verifier raised on the item or its worker process died on it (a verifier bug, reported
with the exception or exit code, never disguised as a timeout).

Items travel in chunks (one pipe round trip per chunk, one reply per item so the parent knows
when each item started) and neighbouring items share a worker, so the worker's cache of parsed
golds is hit for the n samples of one problem. The limit is a last resort: size guards in
kleval.verify keep verdicts independent of machine load, and the default limit is generous.
"""
from __future__ import annotations

import collections
import importlib
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Callable, Iterable

from kleval.types import Status, Verdict
from kleval.verify.policy import Policy

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_CHUNK = 32
STARTUP_S = 120.0
_MAX_IDLE_WAIT_S = 1.0  # the dispatcher re-checks its workers at least this often


@dataclass(frozen=True)
class VerifyItem:
    """One grading request, the same arguments as kleval.verify.verify."""

    gold: str
    completion: str
    kind: str = "math"
    policy: "str | Policy" = "default"


@dataclass
class PoolStats:
    """What the pool had to do: kills on the limit, crashes, and how late the latest kill fired."""

    timeouts: int = 0
    crashes: int = 0
    max_kill_lateness_s: float = 0.0
    kill_lateness_s: list = field(default_factory=list)


def _resolve(path: str) -> Callable[..., Verdict]:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _crash_verdict(explanation: str) -> Verdict:
    return Verdict(Status.CRASH, None, None, None, "pool", explanation[:500])


def _worker_main(requests, replies, verify_path: str) -> None:
    """Worker loop: receive a chunk [(index, item), ...], reply ("done", index, verdict dict) per item."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it kills us
    verify_fn = _resolve(verify_path)
    # Warm up imports and the LaTeX parser before reporting ready, so start-up never counts
    # against the first item's time limit.
    verify_fn(gold="\\frac{1}{2}", completion="\\boxed{x+1}", kind="math", policy="default")
    replies.send(("ready",))
    while True:
        try:
            chunk = requests.recv()
        except EOFError:
            return  # the parent is gone
        if chunk is None:
            return
        for index, item in chunk:
            try:
                verdict = verify_fn(gold=item.gold, completion=item.completion, kind=item.kind, policy=item.policy)
            except Exception as exc:  # a verifier bug on one item must not take the worker down
                verdict = _crash_verdict(f"verifier raised {type(exc).__name__}: {exc}")
            replies.send(("done", index, verdict.to_dict()))


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


def _start_without_unloadable_main(process) -> None:
    """Start a spawned process even when the parent's __main__ came from stdin (`python - < script.py`).

    spawn re-runs the parent's __main__ file in each child; "<stdin>" is no file, so every worker
    would die on start. The workers need nothing from __main__ (their target lives in this module),
    so for that start only __main__ is presented as a module without a file, as in an interactive
    session.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(main, "__spec__", None) is not None or os.path.isfile(path):
        process.start()
        return
    del main.__file__
    try:
        process.start()
    finally:
        main.__file__ = path


class _Worker:
    """One verifier process, its two pipes and the two parent threads that do its blocking I/O."""

    def __init__(self, context, verify_path: str, events: queue.SimpleQueue):
        requests_in, self._requests = context.Pipe(duplex=False)
        self._replies, replies_out = context.Pipe(duplex=False)
        self.process = context.Process(target=_worker_main, args=(requests_in, replies_out, verify_path), daemon=True)
        _start_without_unloadable_main(self.process)
        requests_in.close()
        replies_out.close()
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self.pending: collections.deque[tuple[_Job, int]] = collections.deque()  # in flight, in order
        self.item_started = 0.0
        self.ready = False
        self.retired = False  # killed or stopped: its late events are ignored
        self.spawned = time.monotonic()
        threading.Thread(target=self._write_loop, name="kleval-verifier-writer", daemon=True).start()
        threading.Thread(target=self._read_loop, args=(events,), name="kleval-verifier-reader", daemon=True).start()

    def _write_loop(self) -> None:
        while True:
            chunk = self._outbox.get()
            try:
                self._requests.send(chunk)
            except (OSError, ValueError):
                break  # the worker is gone; its reader reports that
            if chunk is None:
                break
        self._requests.close()

    def _read_loop(self, events: queue.SimpleQueue) -> None:
        while True:
            try:
                message = self._replies.recv()
            except (EOFError, OSError, ValueError):
                events.put(("exit", self, time.monotonic()))
                break
            events.put((message[0], self, message[1:], time.monotonic()))
        self._replies.close()

    def send(self, job: _Job, indices: list[int], now: float) -> None:
        if not self.pending:
            self.item_started = now
        self.pending.extend((job, i) for i in indices)
        self._outbox.put([(i, job.items[i]) for i in indices])

    def stop(self) -> None:
        """Ask the worker to finish (used at close)."""
        self.retired = True
        self._outbox.put(None)

    def kill(self) -> None:
        self.retired = True
        self.process.kill()
        self._outbox.put(None)  # ends the writer thread if it is idle
        self.process.join(timeout=1)


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
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        self.workers, self.timeout_s, self.chunk_size, self.verify_fn = workers, timeout_s, chunk_size, verify_fn
        self._context = multiprocessing.get_context("spawn")  # fork is unsafe beside torch threads
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pool: list[_Worker] = []
        self._chunks: collections.deque = collections.deque()
        self._jobs: list[_Job] = []
        self._failure: BaseException | None = None
        self.restarts = 0
        self.stats = PoolStats()

    def __enter__(self) -> "VerifierPool":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        if self._thread is None:
            self._failure = None
            self._pool = [_Worker(self._context, self.verify_fn, self._events) for _ in range(self.workers)]
            self._thread = threading.Thread(target=self._dispatch, name="kleval-verifier", daemon=True)
            self._thread.start()

    def submit(self, items: Iterable[VerifyItem]) -> "Future[list[Verdict]]":
        """Queue items and return at once; `.result()` gives their verdicts in input order."""
        self.start()
        future: Future = Future()
        items = list(items)
        if self._failure is not None:
            future.set_exception(self._failure)
        elif not items:
            future.set_result([])
        else:
            self._events.put(("job", _Job(items, future)))
        return future

    def map(self, items: Iterable[VerifyItem]) -> list[Verdict]:
        return self.submit(items).result()

    def close(self) -> None:
        if self._thread is not None:
            self._events.put(("close",))
            self._thread.join()
            self._thread = None
        for worker in self._pool:
            worker.stop()
        for worker in self._pool:
            worker.process.join(timeout=2)
            if worker.process.is_alive():
                worker.kill()
        self._pool = []

    # -- the dispatcher thread: owns all pool state, never blocks on a pipe ------------------

    def _dispatch(self) -> None:
        try:
            self._dispatch_loop()
        except BaseException as exc:  # the futures must learn of it, or callers would wait forever
            self._failure = exc
            self._fail_all(exc)

    def _fail_all(self, exc: BaseException) -> None:
        jobs = {id(job): job for job in self._jobs}
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                break
            if event[0] == "job":
                jobs[id(event[1])] = event[1]
        for job in jobs.values():
            if not job.future.done():
                job.future.set_exception(exc)

    def _dispatch_loop(self) -> None:
        closing = False
        while not closing or self._chunks or any(w.pending for w in self._pool):
            try:
                event = self._events.get(timeout=self._next_wakeup())
            except queue.Empty:
                event = None
            while event is not None:
                closing = self._handle(event) or closing
                try:
                    event = self._events.get_nowait()
                except queue.Empty:
                    event = None
            self._enforce_deadlines()
            self._assign()

    def _next_wakeup(self) -> float | None:
        """Seconds until the earliest item limit or start-up limit; None when nothing is running."""
        deadlines = [w.item_started + self.timeout_s for w in self._pool if w.ready and w.pending]
        if self._chunks:
            deadlines += [w.spawned + STARTUP_S for w in self._pool if not w.ready]
        if not deadlines:
            return None if not self._chunks else _MAX_IDLE_WAIT_S
        return min(max(0.0, min(deadlines) - time.monotonic()), _MAX_IDLE_WAIT_S)

    def _handle(self, event: tuple) -> bool:
        """Apply one event; True when close() was requested."""
        kind = event[0]
        if kind == "close":
            return True
        if kind == "job":
            job = event[1]
            self._jobs.append(job)
            indices = list(range(len(job.items)))
            size = max(1, min(self.chunk_size, -(-len(indices) // self.workers)))
            for start in range(0, len(indices), size):
                self._chunks.append((job, indices[start : start + size]))
            return False
        worker = event[1]
        if worker.retired:
            return False  # a killed worker's last words
        if kind == "ready":
            worker.ready = True
        elif kind == "done":
            index, verdict = event[2]
            job, expected = worker.pending.popleft()
            assert index == expected, (index, expected)
            job.finish(index, Verdict.from_dict(verdict))
            worker.item_started = event[3]  # the worker began its next item when it sent this
            if job.remaining == 0:
                self._jobs.remove(job)
        elif kind == "exit":
            worker.process.join(timeout=1)
            code = worker.process.exitcode
            if not worker.ready:
                raise RuntimeError(f"verifier worker failed to start (exit code {code}); run kleval.verify.verify in process to see why")
            self.stats.crashes += bool(worker.pending)
            self._replace(worker, _crash_verdict(f"verifier worker died on this item (exit code {code})"))
        return False

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for worker in list(self._pool):
            if worker.ready and worker.pending and now - worker.item_started > self.timeout_s:
                lateness = now - worker.item_started - self.timeout_s
                self.stats.timeouts += 1
                self.stats.kill_lateness_s.append(lateness)
                self.stats.max_kill_lateness_s = max(self.stats.max_kill_lateness_s, lateness)
                self._replace(worker, Verdict(Status.TIMEOUT, None, None, None, "pool",
                                              f"verification exceeded {self.timeout_s:g} s; worker killed"))
            elif not worker.ready and self._chunks and now - worker.spawned > STARTUP_S:
                raise RuntimeError(f"verifier worker did not start within {STARTUP_S:g} s")

    def _assign(self) -> None:
        now = time.monotonic()
        for worker in self._pool:
            # Keep up to two chunks in flight per worker so it never idles during a round trip.
            while worker.ready and len(worker.pending) < self.chunk_size and self._chunks:
                job, indices = self._chunks.popleft()
                worker.send(job, indices, now)

    def _replace(self, worker: _Worker, verdict: Verdict) -> None:
        """Kill a hung or dead worker, give its current item `verdict`, requeue the rest, start a fresh one."""
        worker.kill()
        self.restarts += 1
        pending = list(worker.pending)
        worker.pending.clear()
        if pending:
            job, index = pending[0]
            job.finish(index, verdict)
            if job.remaining == 0:
                self._jobs.remove(job)
            for job, index in reversed(pending[1:]):
                self._chunks.appendleft((job, [index]))
        self._pool[self._pool.index(worker)] = _Worker(self._context, self.verify_fn, self._events)
