"""`--jobs N`: a stage's independent tasks (Markdown files, pages, renderings) in N worker processes.

Workers are forked, so each starts with the parent's state: a stage hands them its big read-only values
(`shared`: page contexts, template environments) before the pool exists, and only small, picklable items
(an index, a path, a chart spec) travel to them; results come back in the order of the items, so the site
is the same whatever N is. With one job, or where fork is unavailable, the tasks run in this process.
Renderings (vl-convert, whose runtime threads a fork would not carry over) go to a spawned worker instead,
behind an error boundary (`images.in_fresh_worker`).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor

FEW = 8  # fewer forked tasks than this run here: forking a parent that holds the site costs more than they do


def default_jobs() -> int:
    return os.cpu_count() or 1


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


# Forked workers are replaced after this many items: what they hold then goes back to the system. Each fork of
# a parent holding the site costs its page tables and copied pages: every 512 items cost 1-2 s of a 3,000-article
# build, while its largest process stays under 300 MB with 4,096.
RECYCLE = 4096


def run(task: Callable, items: Iterable, jobs: int, shared: object = None, isolated: bool = False) -> list:
    """[task(shared, item) for item in items], in `jobs` processes when jobs > 1, or in one worker process when
    `isolated` (where fork can be used and the items are not few): what the tasks leave behind (a library loaded
    for them, the allocator's fragments of their garbage) then goes with the worker instead of staying in this
    process for the rest of the build.

    Nothing of the parent's changes: the task and its shared values reach each worker as the arguments of its
    initializer, which a fork hands over without pickling. A process running other threads (`serve`: its
    server and watcher) is never forked, since a thread holding a lock at the fork leaves the worker stuck:
    its tasks run here."""
    return list(each(task, items, jobs, shared, isolated=isolated))


def each(task: Callable, items: Iterable, jobs: int, shared: object = None, chunk: int | None = None,
         isolated: bool = False) -> Iterator:
    """As run(), yielding each result, in the order of the items, as soon as it and those before it are done.

    `chunk`: items sent to a worker at a time (default: a quarter of each worker's share; 1 where items' costs
    differ widely, so that no worker is left with the slow ones)."""
    items = list(items)
    if (not items or (jobs <= 1 and not isolated) or len(items) < FEW or not can_fork()
            or threading.active_count() > 1):
        yield from (task(shared, item) for item in items)
        return
    workers = max(1, min(jobs, len(items)))
    frozen = gc.get_freeze_count() > 0  # a caller's freeze is the caller's to undo
    gc.freeze()  # what the workers inherit stays out of their collections, so its memory stays shared
    try:
        # Python's allocator seldom returns freed memory: fresh workers for each batch bound what each one holds.
        for start in range(0, len(items), RECYCLE):
            batch = items[start:start + RECYCLE]
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                     initializer=_worker_started, initargs=(task, shared)) as pool:
                yield from pool.map(_call, batch, chunksize=chunk or max(1, len(batch) // (workers * 4)))
    finally:
        if not frozen:
            gc.unfreeze()


_worker: tuple[Callable, object] | None = None  # in a worker process only: its task and shared values


def _worker_started(task: Callable, shared: object) -> None:
    global _worker
    _worker = (task, shared)


def _call(item):
    task, shared = _worker
    return task(shared, item)
