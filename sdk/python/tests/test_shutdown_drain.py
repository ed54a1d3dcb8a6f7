"""The drain of ``shutdown()`` and ``shutdown_async()``: ``unregisterfunction`` for each function,
then a JSON ``ping``, and the connection closes only once the engine's ``pong`` came (every call
it sent before reading the ``unregisterfunction`` frames has arrived, and was refused with code
``shutdown``), or once ``drain_timeout`` is over when no ``pong`` comes. With a real engine and
worker processes: tests/e2e/python_idle_replica_stop_test.ts."""

from __future__ import annotations

import asyncio
import threading
import time
import unittest
from typing import Any, Callable

import support
from engine_peer import WAIT
from engine_sdk import Worker

FUNCTIONS = ["drain::a", "drain::b"]

STOPS: dict[str, Callable[[Worker, float], None]] = {
    "shutdown": lambda worker, drain: worker.shutdown(drain_timeout=drain),
    # From a loop of the program's own (a FastAPI lifespan): it waits in another thread.
    "shutdown_async": lambda worker, drain: asyncio.run(worker.shutdown_async(drain_timeout=drain)),
}


def invoke(invocation_id: str, function_id: str) -> dict[str, Any]:
    return {"type": "invokefunction", "invocation_id": invocation_id, "function_id": function_id, "data": {}}


class ShutdownDrainTest(support.WorkerTestCase):
    def connected_worker(self) -> tuple[Worker, Any]:
        """A worker of FUNCTIONS on an engine that answers no JSON ``ping`` unless told to."""
        engine = self.start_engine(json_pong=False)
        worker = self.start_worker(engine.url)
        for function_id in FUNCTIONS:
            worker.register_function(function_id, lambda payload: "ran")
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        return worker, peer

    def test_unregisters_then_pings_and_closes_after_the_pong(self) -> None:
        for name, stop in STOPS.items():
            with self.subTest(name):
                worker, peer = self.connected_worker()
                stopped = support.in_thread(lambda: stop(worker, 30))
                unregistered = {peer.next_frame()["id"] for _ in FUNCTIONS}
                self.assertEqual(unregistered, set(FUNCTIONS))
                self.assertEqual(peer.next_frame(), {"type": "ping"})
                # A call the engine sent before it read the unregisterfunction frames arrives now:
                # refused as never run (the engine sends it to another replica), not left unanswered.
                peer.send(invoke("late-1", "drain::a"))
                refused = peer.next_of("invocationresult")
                self.assertEqual((refused["invocation_id"], refused.get("error")),
                                 ("late-1", {"code": "shutdown", "message": "Worker is shutting down"}))
                self.assertNotIn("result", refused)
                self.assertFalse(peer.closed.is_set(), "closed before the pong")
                peer.send({"type": "pong"})
                self.assertEqual(peer.wait_closed(), 1000)
                stopped.result(WAIT)  # well within the drain time-out of 30 s: the pong ended it
                peer.assert_quiet(0)

    def test_without_a_pong_it_closes_at_the_end_of_the_drain_time(self) -> None:
        # An engine that never answers a JSON ping: the wait for it lasts the drain time-out.
        for name, stop in STOPS.items():
            with self.subTest(name):
                worker, peer = self.connected_worker()
                began = time.monotonic()
                stopped = support.in_thread(lambda: stop(worker, 0.3))
                self.assertEqual(peer.next_of("ping"), {"type": "ping"})
                self.assertEqual(peer.wait_closed(), 1000)
                self.assertGreaterEqual(time.monotonic() - began, 0.3, "it waited for the pong")
                stopped.result(WAIT)

    def test_drain_timeout_zero_does_not_wait_for_the_pong(self) -> None:
        for name, stop in STOPS.items():
            with self.subTest(name):
                worker, peer = self.connected_worker()
                # No pong ever comes: the worker closes at once all the same.
                stopped = support.in_thread(lambda: stop(worker, 0))
                self.assertEqual(peer.wait_closed(), 1000)
                stopped.result(WAIT)

    def test_a_reconnect_during_the_drain_registers_no_function_again(self) -> None:
        # The engine would route new calls to the worker again, and on the new connection no
        # ping guards the close: a call sent just before it would be left unanswered.
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        started, release = threading.Event(), threading.Event()

        def hold(payload: object) -> str:
            started.set()
            release.wait(WAIT)
            return "held"

        worker.register_function("drain::hold", hold)
        worker.register_function("drain::a", lambda payload: "ran")
        first = engine.wait_connection()
        support.skip_open_burst(first)
        first.send(invoke("held-1", "drain::hold"))
        self.assertTrue(started.wait(WAIT))
        stopped = support.in_thread(lambda: worker.shutdown(drain_timeout=30))
        first.next_of("ping")
        first.drop()
        second = engine.wait_connection(2)
        burst = []
        while not burst or burst[-1].get("function_id") != "engine::workers::register":
            burst.append(second.next_frame())
        self.assertEqual([f for f in burst if f["type"] == "registerfunction"], [])
        release.set()
        self.assertEqual(second.wait_closed(), 1000)
        stopped.result(WAIT)

    def test_a_worker_shutting_down_while_disconnected_does_not_wait_for_a_pong(self) -> None:
        # No connection, so no ping: nothing to wait for, even with a long drain time-out.
        engine = self.start_engine(json_pong=False, listening=False)
        worker = self.start_worker(engine.url)
        worker.register_function("drain::a", lambda payload: "ran")
        stopped = support.in_thread(lambda: worker.shutdown(drain_timeout=30))
        stopped.result(WAIT)
        self.assertEqual(engine.connections, [])


if __name__ == "__main__":
    unittest.main()
