"""Shared test setup: puts the SDK on ``sys.path`` and builds fast workers."""

from __future__ import annotations

import concurrent.futures
import logging
import os
import sys
import time
import unittest
from typing import Any, Callable

SDK_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if SDK_ROOT not in sys.path:
    sys.path.insert(0, SDK_ROOT)

from engine_peer import ScriptedEngine  # noqa: E402
from engine_sdk import Worker, register_worker  # noqa: E402

# The SDK's own warnings (reconnects, idle drops) are expected in these tests.
logging.getLogger("engine_sdk").setLevel(logging.CRITICAL)

FAST: dict[str, Any] = {
    "worker_name": "test-worker",
    "reconnect_initial_delay_ms": 20,
    "reconnect_max_delay_ms": 100,
    "reconnect_jitter": 0,
    "handshake_timeout_ms": 2000,
    "invocation_timeout_ms": 5000,
}


class WorkerTestCase(unittest.TestCase):
    """Starts engines and workers that are stopped after the test (workers first)."""

    def start_engine(self, **options: Any) -> ScriptedEngine:
        engine = ScriptedEngine(**options)
        engine.__enter__()
        self.addCleanup(engine.__exit__, None, None, None)
        return engine

    def start_worker(self, url: str, **options: Any) -> Worker:
        worker = register_worker(url, {**FAST, **options})
        self.addCleanup(worker.shutdown)
        return worker


def skip_open_burst(peer: Any) -> dict[str, Any]:
    """Consumes frames up to and including the ``engine::workers::register`` call."""
    return peer.next_of("invokefunction", "engine::workers::register")


def in_thread(fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
    """Runs a blocking call (such as ``worker.trigger``) while the test drives the peer."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    future = pool.submit(fn)
    pool.shutdown(wait=False)
    return future


def wait_until(predicate: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    """Polls a condition that has no event to wait on; fails the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        time.sleep(0.005)
