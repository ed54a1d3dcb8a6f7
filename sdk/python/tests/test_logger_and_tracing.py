"""Logger records carry the function and the trace; trace context flows through calls."""

from __future__ import annotations

import asyncio
import contextlib
import io
import threading
import unittest

import support
from engine_sdk import Logger, current_scope, parse_traceparent

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
SPAN_ID = "b7ad6b7169203331"


def invoke(function_id: str, invocation_id: str = "aaaaaaaa-0000-4000-8000-000000000001", **extra: object) -> dict:
    return {"type": "invokefunction", "invocation_id": invocation_id, "function_id": function_id, "data": {"a": 2}, **extra}


class LoggerTest(support.WorkerTestCase):
    def connect(self):  # noqa: ANN201
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        return worker, peer

    def test_logger_in_a_sync_handler_carries_function_and_trace(self) -> None:
        worker, peer = self.connect()
        logger = Logger()

        def add(payload: dict) -> dict:
            logger.info(f"math::add called with a={payload['a']}", {"a": payload["a"]})
            return {"c": payload["a"]}

        worker.register_function("math::add", add)
        peer.send(invoke("math::add", traceparent=TRACEPARENT, baggage="k=v"))
        log = peer.next_of("invokefunction", "engine::log::info")
        self.assertEqual(log["action"], {"type": "void"})
        self.assertNotIn("invocation_id", log)
        self.assertEqual(
            log["data"],
            {"message": "math::add called with a=2", "data": {"a": 2}, "function_id": "math::add",
             "trace_id": TRACE_ID, "span_id": SPAN_ID},
        )
        self.assertEqual(log["traceparent"], TRACEPARENT)
        self.assertEqual(log["baggage"], "k=v")

    def test_logger_in_an_async_handler_and_every_level(self) -> None:
        worker, peer = self.connect()
        logger = Logger("billing")

        async def handler(payload: dict) -> None:
            await asyncio.sleep(0)
            logger.debug("d")
            logger.warn("w", {"n": 1})
            logger.error("e")

        worker.register_function("bill::run", handler)
        peer.send(invoke("bill::run", traceparent=TRACEPARENT))
        for level, message in [("debug", "d"), ("warn", "w"), ("error", "e")]:
            frame = peer.next_of("invokefunction", f"engine::log::{level}")
            self.assertEqual(frame["data"]["message"], message)
            self.assertEqual(frame["data"]["function_id"], "bill::run")
            self.assertEqual(frame["data"]["trace_id"], TRACE_ID)
            self.assertEqual(frame["data"]["service_name"], "billing")

    def test_logger_outside_a_handler_has_no_function_or_trace(self) -> None:
        worker, peer = self.connect()
        Logger(worker=worker).info("started")
        frame = peer.next_of("invokefunction", "engine::log::info")
        self.assertEqual(frame["data"], {"message": "started"})
        self.assertNotIn("traceparent", frame)

    def test_unserializable_data_is_logged_as_text(self) -> None:
        worker, peer = self.connect()
        Logger(worker=worker).info("odd", {"obj": object.__name__, "set": {1}})
        frame = peer.next_of("invokefunction", "engine::log::info")
        self.assertEqual(frame["data"]["data"], {"obj": "object", "set": "{1}"})

    def test_data_json_cannot_encode_is_logged_as_text_instead_of_raising(self) -> None:
        # A log call raised TypeError (a tuple key) or ValueError (a cycle) out of the handler that
        # logged, failing its call.
        worker, peer = self.connect()
        cycle: list = [1]
        cycle.append(cycle)
        deep: list = []
        for _ in range(100_000):
            deep = [deep]
        cases = [
            ({"point": {(1, 2): "a"}}, {"point": {"(1, 2)": "a"}}),
            ({"cycle": cycle}, {"cycle": [1, "[Circular]"]}),
        ]
        for data, logged in cases:
            with self.subTest(data=logged):
                Logger(worker=worker).info("odd", data)
                frame = peer.next_of("invokefunction", "engine::log::info")
                self.assertEqual(frame["data"]["data"], logged)
        Logger(worker=worker).info("deep", {"deep": deep})
        frame = peer.next_of("invokefunction", "engine::log::info")
        self.assertEqual(frame["data"]["message"], "deep")
        level, depth = frame["data"]["data"]["deep"], 1
        while isinstance(level, list):
            level, depth = level[0], depth + 1
        self.assertEqual((level, depth), ("[Nested too deeply]", 100))

    def test_a_message_whose_str_raises_is_logged_by_its_type_name(self) -> None:
        class Unprintable:
            def __str__(self) -> str:
                raise RuntimeError("no text")

        worker, peer = self.connect()
        Logger(worker=worker).info(Unprintable(), {"n": 1})  # type: ignore[arg-type]
        frame = peer.next_of("invokefunction", "engine::log::info")
        self.assertEqual(frame["data"]["message"], "<Unprintable>")

    def test_a_printed_record_with_text_its_stream_cannot_encode_is_escaped_instead_of_raising(self) -> None:
        # With no worker running the record is printed: a lone surrogate (or "é" on an ASCII
        # terminal) raised UnicodeEncodeError out of the log call.
        cases = [("utf-8", "a\ud800b", "[INFO] a\\ud800b\n"), ("ascii", "café", "[INFO] caf\\xe9\n")]
        for encoding, message, printed in cases:
            with self.subTest(encoding=encoding):
                raw = io.BytesIO()
                out = io.TextIOWrapper(raw, encoding=encoding, errors="strict")
                with contextlib.redirect_stdout(out):
                    Logger().info(message)
                out.flush()
                self.assertEqual(raw.getvalue().decode(encoding), printed)

    def test_nan_and_infinities_in_data_are_logged_as_null(self) -> None:
        # As JSON.stringify writes them; the record used to be lost (JSON has no NaN).
        worker, peer = self.connect()
        Logger(worker=worker).info("measured", {"ratio": float("nan"), "max": float("inf"), "n": [float("-inf"), 1.5]})
        frame = peer.next_of("invokefunction", "engine::log::info")
        self.assertEqual(frame["data"]["data"], {"ratio": None, "max": None, "n": [None, 1.5]})

    def test_logger_prints_when_no_worker_runs(self) -> None:
        out, err = io.StringIO(), io.StringIO()
        worker, _ = self.connect()
        worker.shutdown()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            Logger().info("hello", {"x": 1})
            Logger("svc").error("bad")
        self.assertEqual(out.getvalue(), '[INFO] hello {"x": 1}\n')
        self.assertEqual(err.getvalue(), "[ERROR] [svc] bad\n")


class TracingTest(support.WorkerTestCase):
    def connect(self):  # noqa: ANN201
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        return worker, peer

    def test_result_echoes_the_trace_context(self) -> None:
        worker, peer = self.connect()
        worker.register_function("demo::echo", lambda p: p)
        peer.send(invoke("demo::echo", traceparent=TRACEPARENT, baggage="a=1"))
        frame = peer.next_of("invocationresult")
        self.assertEqual((frame["traceparent"], frame["baggage"]), (TRACEPARENT, "a=1"))

    def test_calls_from_sync_and_async_handlers_carry_the_trace(self) -> None:
        worker, peer = self.connect()

        def sync_handler(payload: dict) -> object:
            return worker.trigger({"function_id": "inner::sync", "payload": {}})

        async def async_handler(payload: dict) -> object:
            return await worker.trigger_async({"function_id": "inner::async", "payload": {}})

        worker.register_function("outer::sync", sync_handler)
        worker.register_function("outer::async", async_handler)
        other = "00-11111111111111111111111111111111-2222222222222222-01"
        peer.send(invoke("outer::sync", traceparent=TRACEPARENT))
        peer.send(invoke("outer::async", "aaaaaaaa-0000-4000-8000-000000000002", traceparent=other, baggage="b=2"))
        calls = {f["function_id"]: f for f in (peer.next_of("invokefunction") for _ in range(2))}
        inner_sync, inner_async = calls["inner::sync"], calls["inner::async"]
        self.assertEqual(inner_sync["traceparent"], TRACEPARENT)
        self.assertNotIn("baggage", inner_sync)
        self.assertEqual((inner_async["traceparent"], inner_async["baggage"]), (other, "b=2"))

    def test_calls_outside_handlers_carry_no_trace(self) -> None:
        worker, peer = self.connect()
        worker.trigger({"function_id": "plain::call", "payload": {}, "action": {"type": "void"}})
        self.assertNotIn("traceparent", peer.next_frame())

    def test_scope_is_visible_in_handlers_and_threads_it_started_are_not_confused(self) -> None:
        worker, peer = self.connect()
        seen: dict[str, object] = {}
        done = threading.Event()

        def handler(payload: dict) -> None:
            scope = current_scope()
            seen["function_id"] = scope.function_id if scope else None
            seen["invocation_id"] = scope.invocation_id if scope else None
            seen["worker"] = scope.worker if scope else None
            done.set()

        worker.register_function("scope::check", handler)
        peer.send(invoke("scope::check", traceparent=TRACEPARENT))
        self.assertTrue(done.wait(5))
        self.assertEqual(seen, {"function_id": "scope::check",
                                "invocation_id": "aaaaaaaa-0000-4000-8000-000000000001", "worker": worker})
        self.assertIsNone(current_scope())

    def test_parse_traceparent(self) -> None:
        tp = parse_traceparent(TRACEPARENT)
        assert tp is not None
        self.assertEqual((tp.trace_id, tp.span_id, tp.flags), (TRACE_ID, SPAN_ID, "01"))
        for bad in [None, "", "garbage", "ff-" + TRACEPARENT[3:], "00-" + "0" * 32 + "-b7ad6b7169203331-01",
                    "00-" + TRACE_ID + "-" + "0" * 16 + "-01", TRACEPARENT[1:], TRACEPARENT + "0",
                    TRACEPARENT.replace("-b7", "_b7"), TRACEPARENT.replace("0af7", "0ag7")]:
            with self.subTest(value=bad):
                self.assertIsNone(parse_traceparent(bad))
                self.assertIsNone(parse_traceparent(bad.upper() if isinstance(bad, str) else bad))

    def test_parse_traceparent_accepts_upper_case_and_returns_lower_case(self) -> None:
        # As the engine does (engine/observability/traceparent.ts).
        cases = [
            (TRACEPARENT.upper(), ("00", TRACE_ID, SPAN_ID, "01")),
            (f"00-{TRACE_ID.upper()}-{SPAN_ID}-01", ("00", TRACE_ID, SPAN_ID, "01")),
            ("00-0aF7651916Cd43dD8448eB211C80319C-B7aD6b7169203331-01", ("00", TRACE_ID, SPAN_ID, "01")),
            (f" {TRACEPARENT.upper()}\n", ("00", TRACE_ID, SPAN_ID, "01")),
            (TRACEPARENT[:-2] + "FF", ("00", TRACE_ID, SPAN_ID, "ff")),
            ("0A" + TRACEPARENT[2:], ("0a", TRACE_ID, SPAN_ID, "01")),
        ]
        for value, expected in cases:
            with self.subTest(value=value):
                tp = parse_traceparent(value)
                assert tp is not None
                self.assertEqual((tp.version, tp.trace_id, tp.span_id, tp.flags), expected)


if __name__ == "__main__":
    unittest.main()
