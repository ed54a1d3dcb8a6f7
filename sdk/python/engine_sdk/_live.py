"""The workers of this process that have not shut down.

They give the ``Logger`` a worker to send through outside handlers (the most
recent one), and they are shut down when the interpreter exits, by one
``atexit`` hook for all of them. A worker leaves at its shutdown, so a program
that makes and shuts down many workers holds nothing for the ones gone.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from typing import Any

EXIT_TIMEOUT_S = 2.0
"""How long the exit hook waits for each worker's connection to close, after its drain."""

_lock = threading.Lock()
_workers: dict[int, weakref.ref[Any]] = {}  # by id(), oldest first
_hooked = False


def add(worker: Any) -> None:
    """Records a worker that started."""
    global _hooked
    with _lock:
        for key in [key for key, ref in _workers.items() if ref() is None]:
            del _workers[key]  # stopped without shutdown() and collected since
        _workers[id(worker)] = weakref.ref(worker)
        if not _hooked:
            atexit.register(_shut_down_all)
            _hooked = True


def remove(worker: Any) -> None:
    """Forgets a worker that is shutting down."""
    with _lock:
        ref = _workers.get(id(worker))
        if ref is not None and ref() is worker:
            del _workers[id(worker)]


def newest_first() -> list[Any]:
    """The workers recorded, the most recently started first."""
    with _lock:
        refs = list(_workers.values())
    return [worker for ref in reversed(refs) if (worker := ref()) is not None]


def count() -> int:
    """How many workers are recorded (for tests)."""
    with _lock:
        return len(_workers)


def _shut_down_all() -> None:
    for worker in newest_first():
        if worker.running:
            worker.shutdown(timeout=EXIT_TIMEOUT_S)
