"""What a worker sends when it connects and registers functions and triggers."""

from __future__ import annotations

import datetime
import os
import unittest
import uuid
from typing import Any

import support
from engine_sdk import InitOptions, register_worker


class RegistrationTest(support.WorkerTestCase):
    def test_open_sends_worker_metadata_as_a_void_call(self) -> None:
        engine = self.start_engine()
        self.start_worker(engine.url, worker_name="math-worker", worker_description="Adds")
        peer = engine.wait_connection()
        frame = peer.next_frame()
        self.assertEqual(frame["type"], "invokefunction")
        self.assertEqual(frame["function_id"], "engine::workers::register")
        self.assertEqual(frame["action"], {"type": "void"})
        self.assertNotIn("invocation_id", frame)
        data = frame["data"]
        self.assertEqual(data["runtime"], "python")
        self.assertEqual(data["sdk"], "engine-python")
        self.assertEqual(data["name"], "math-worker")
        self.assertEqual(data["description"], "Adds")
        self.assertEqual(data["pid"], os.getpid())
        self.assertIsInstance(data["version"], str)
        self.assertIsInstance(data["os"], str)

    def test_register_function_sends_its_frame(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        worker.register_function("math::add", lambda p: p)
        self.assertEqual(peer.next_frame(), {"type": "registerfunction", "id": "math::add"})
        worker.register_function("math::sub", lambda p: p, description="Subtracts")
        self.assertEqual(
            peer.next_frame(), {"type": "registerfunction", "id": "math::sub", "description": "Subtracts"}
        )

    def test_register_function_sends_its_metadata_and_formats_and_replays_them(self) -> None:
        # As the TypeScript SDK's registerFunction options: only "description" existed here.
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        schema = {"type": "object", "properties": {"a": {"type": "number"}}}
        meta = {"team": "billing"}
        worker.register_function("math::add", lambda p: p, description="Adds", metadata=meta,
                                 request_format=schema, response_format={"type": "number"})
        meta["team"] = "changed"  # the registration keeps what was given
        expected = {"type": "registerfunction", "id": "math::add", "description": "Adds", "metadata": {"team": "billing"},
                    "request_format": schema, "response_format": {"type": "number"}}
        self.assertEqual(peer.next_frame(), expected)
        peer.drop()
        replayed = engine.wait_connection(2)
        self.assertEqual(replayed.next_of("registerfunction"), expected)

    def test_register_function_refuses_details_it_could_not_send(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        cases = [
            ({"metadata": ["not", "a", "dict"]}, '"metadata" must be a dict, got list'),
            ({"metadata": {"when": datetime.date(2024, 1, 1)}}, '"metadata" is not JSON-serializable: .*date'),
            ({"request_format": {1, 2}}, '"request_format" is not JSON-serializable: .*set'),
            ({"response_format": float("nan")}, '"response_format" is not JSON-serializable'),
        ]
        for details, message in cases:
            with self.subTest(details=details):
                with self.assertRaisesRegex(ValueError, f'^Invalid function "a::b": {message}'):
                    worker.register_function("a::b", lambda p: p, **details)
        worker.register_function("a::b", lambda p: p)  # nothing was kept from the refused ones

    def test_functions_registered_before_the_open_come_first(self) -> None:
        engine = self.start_engine(refuse_status=503)  # no connection until both are registered
        worker = self.start_worker(engine.url)
        worker.register_function("a::one", lambda p: p)
        worker.register_function("a::two", lambda p: p)
        engine.refuse_status = None
        peer = engine.wait_connection()
        frames = [peer.next_frame() for _ in range(3)]
        self.assertEqual([f.get("id") or f["function_id"] for f in frames], ["a::one", "a::two", "engine::workers::register"])

    def test_register_trigger_sends_a_uuid_and_the_wire_names(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        trigger = worker.register_trigger(
            {
                "type": "http",
                "function_id": "math::add",
                "config": {"api_path": "/math/add", "http_method": "POST"},
                "metadata": {"m": 1},
            }
        )
        frame = peer.next_frame()
        self.assertEqual(uuid.UUID(frame["id"]).version, 4)
        self.assertEqual(frame["id"], trigger.id)
        self.assertEqual(
            frame,
            {
                "type": "registertrigger",
                "id": trigger.id,
                "trigger_type": "http",
                "function_id": "math::add",
                "config": {"api_path": "/math/add", "http_method": "POST"},
                "metadata": {"m": 1},
            },
        )
        trigger.unregister()
        self.assertEqual(peer.next_frame(), {"type": "unregistertrigger", "id": trigger.id, "trigger_type": "http"})

    def test_unregister_function(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        ref = worker.register_function("math::add", lambda p: p)
        peer.next_of("registerfunction")
        ref.unregister()
        self.assertEqual(peer.next_frame(), {"type": "unregisterfunction", "id": "math::add"})
        worker.register_function("math::add", lambda p: p)  # the id is free again
        self.assertEqual(peer.next_frame()["id"], "math::add")

    def test_invalid_function_ids_are_refused_with_the_id_named(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        for bad in ["orders", "orders::", "::create", "orders::cre ate", "orders:create", "a::b/c", ""]:
            with self.subTest(id=bad):
                with self.assertRaises(ValueError) as caught:
                    worker.register_function(bad, lambda p: p)
                self.assertIn(f'Invalid function id "{bad}"', str(caught.exception))
        for good in ["orders::create", "my-svc::do_it", "a::b::c", "A1::B2"]:
            worker.register_function(good, lambda p: p)

    def test_duplicate_function_id_is_refused(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        worker.register_function("math::add", lambda p: p)
        with self.assertRaisesRegex(ValueError, 'Cannot register function "math::add": already registered'):
            worker.register_function("math::add", lambda p: p)

    def test_handler_must_be_callable(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        with self.assertRaisesRegex(TypeError, 'Cannot register function "math::add": the handler is not callable'):
            worker.register_function("math::add", {"not": "callable"})  # type: ignore[arg-type]

    def test_trigger_fields_are_checked(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        with self.assertRaisesRegex(ValueError, 'Invalid trigger "type"'):
            worker.register_trigger({"function_id": "a::b", "config": {}})
        with self.assertRaisesRegex(ValueError, 'Invalid "function_id"'):
            worker.register_trigger({"type": "http", "config": {}})
        with self.assertRaisesRegex(ValueError, 'Invalid trigger for "a::b": "config" is required'):
            worker.register_trigger({"type": "http", "function_id": "a::b"})

    def test_values_json_cannot_hold_are_refused_at_the_call_and_the_replay_keeps_the_rest(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        worker.register_function("a::b", lambda p: p)
        kept = worker.register_trigger({"type": "http", "function_id": "a::b", "config": {"api_path": "/b"}})
        refused: list[tuple[str, Any, str]] = [
            ("config", {"at": datetime.datetime(2024, 1, 1)}, "Object of type datetime"),
            ("config", {"ratio": float("nan")}, "Out of range float values"),
            ("metadata", {"tags": {"x"}}, "Object of type set"),
        ]
        cycle: dict[str, Any] = {}
        cycle["self"] = cycle
        refused.append(("config", cycle, "Circular reference"))
        for field, value, detail in refused:
            with self.subTest(field=field, value=value):
                trigger = {"type": "http", "function_id": "a::b", "config": {}, field: value}
                with self.assertRaisesRegex(
                    ValueError, f'^Invalid trigger "http" for "a::b": "{field}" is not JSON-serializable: {detail}'
                ):
                    worker.register_trigger(trigger)
        with self.assertRaisesRegex(ValueError, '^Invalid function "a::c": "description" must be a string, got int'):
            worker.register_function("a::c", lambda p: p, description=1)  # type: ignore[arg-type]

        first = engine.wait_connection(1)
        support.skip_open_burst(first)
        first.drop()
        second = engine.wait_connection(2)
        frames = [second.next_frame() for _ in range(4)]
        self.assertEqual([f["type"] for f in frames[:3]], ["reattach", "registerfunction", "registertrigger"])
        self.assertEqual(frames[2]["id"], kept.id)
        self.assertEqual(frames[3]["function_id"], "engine::workers::register")

    def test_options_are_checked(self) -> None:
        with self.assertRaisesRegex(ValueError, 'Unknown worker option "workerName"'):
            register_worker("ws://127.0.0.1:1", {"workerName": "x"})
        with self.assertRaisesRegex(ValueError, 'Invalid worker option "idle_timeout_ms"'):
            register_worker("ws://127.0.0.1:1", InitOptions(idle_timeout_ms=0))


if __name__ == "__main__":
    unittest.main()
