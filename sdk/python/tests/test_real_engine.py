"""Cases whose point is what the real engine does with what the worker sends."""

from __future__ import annotations

import threading
import unittest

import support
from engine_sdk import EngineError, Worker, register_worker
from real_engine import RealEngine


class RealEngineTest(unittest.TestCase):
    engine: RealEngine

    @classmethod
    def setUpClass(cls) -> None:
        cls.engine = RealEngine()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.engine.stop()

    def worker(self, name: str) -> Worker:
        worker = register_worker(self.engine.url, {**support.FAST, "worker_name": name})
        self.addCleanup(worker.shutdown)
        return worker

    def ready(self, caller: Worker, *function_ids: str) -> None:
        def listed() -> bool:
            found = caller.trigger({"function_id": "engine::functions::list", "payload": {}})
            return set(function_ids) <= {f["function_id"] for f in found["functions"]}

        support.wait_until(listed, f"{function_ids} are registered", timeout=10)

    def test_a_result_too_large_fails_its_call_alone(self) -> None:
        # Sent, the engine's server ended the worker's connection: the call in flight beside it
        # failed too (invocation_stopped), and the big one said nothing of its size.
        provider, caller = self.worker("big"), self.worker("caller")
        release = threading.Event()
        provider.register_function("big::make", lambda p: "x" * (64 * 1024 * 1024))
        provider.register_function("big::wait", lambda p: "waited" if release.wait(20) else "not released")
        self.ready(caller, "big::make", "big::wait")
        beside = support.in_thread(lambda: caller.trigger({"function_id": "big::wait", "payload": {}, "timeout_ms": 30_000}))
        support.wait_until(lambda: len(provider._session._handling) == 1, "big::wait runs")  # noqa: SLF001
        with self.assertRaises(EngineError) as caught:
            caller.trigger({"function_id": "big::make", "payload": {}, "timeout_ms": 30_000})
        self.assertEqual(caught.exception.code, "frame_too_large", str(caught.exception))
        self.assertRegex(caught.exception.message, r'^Result of "big::make" is \d+ bytes, over the 67108863 bytes')
        release.set()
        self.assertEqual(beside.result(20), "waited")

    def test_function_details_reach_the_engines_function_list(self) -> None:
        provider, caller = self.worker("described"), self.worker("reader")
        schema = {"type": "object", "required": ["a"]}
        provider.register_function("described::fn", lambda p: p, description="Described", metadata={"team": "x"},
                                   request_format=schema, response_format={"type": "string"})
        self.ready(caller, "described::fn")
        found = caller.trigger({"function_id": "engine::functions::list", "payload": {}})
        listed = next(f for f in found["functions"] if f["function_id"] == "described::fn")
        self.assertEqual(
            {key: listed[key] for key in ("description", "metadata", "request_format", "response_format")},
            {"description": "Described", "metadata": {"team": "x"}, "request_format": schema,
             "response_format": {"type": "string"}},
        )


if __name__ == "__main__":
    unittest.main()
