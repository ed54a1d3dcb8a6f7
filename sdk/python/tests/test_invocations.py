"""The engine calls a worker's function: handlers run and their answers go back."""

from __future__ import annotations

import asyncio
import threading
import unittest
from typing import Any

import support
from engine_sdk import EngineError

INVOCATION_ID = "aaaaaaaa-0000-4000-8000-000000000001"


def invoke(function_id: str, data: object, invocation_id: str | None = INVOCATION_ID, **extra: object) -> dict:
    frame: dict = {"type": "invokefunction", "function_id": function_id, "data": data, **extra}
    if invocation_id is not None:
        frame["invocation_id"] = invocation_id
    return frame


class CodedError(Exception):
    code = "out_of_stock"


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


class BrokenCodeError(Exception):
    @property
    def code(self) -> str:
        raise RuntimeError("no code")


async def cancelled_inside(payload: object) -> None:
    task = asyncio.get_running_loop().create_task(asyncio.sleep(10))
    task.cancel()
    await task  # raises CancelledError in this handler, whose own task is not being cancelled


def raise_(err: BaseException) -> Any:
    def handler(payload: object) -> None:
        raise err

    return handler


class InvocationTest(support.WorkerTestCase):
    def connect(self, **options: object):  # noqa: ANN201
        engine = self.start_engine()
        worker = self.start_worker(engine.url, **options)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        return worker, peer

    def test_sync_handler_answers_with_its_result(self) -> None:
        worker, peer = self.connect()
        worker.register_function("math::add", lambda p: {"c": p["a"] + p["b"]})
        peer.next_of("registerfunction")
        peer.send(invoke("math::add", {"a": 2, "b": 3}))
        self.assertEqual(
            peer.next_frame(),
            {"type": "invocationresult", "invocation_id": INVOCATION_ID, "function_id": "math::add", "result": {"c": 5}},
        )

    def test_sync_handlers_run_off_the_event_loop(self) -> None:
        worker, peer = self.connect()
        seen: list[str] = []

        def handler(payload: object) -> str:
            seen.append(threading.current_thread().name)
            return "ok"

        worker.register_function("t::where", handler)
        peer.send(invoke("t::where", {}))
        self.assertEqual(peer.next_of("invocationresult")["result"], "ok")
        self.assertTrue(seen[0].startswith("engine-handler"), seen)

    def test_async_handler_answers_with_its_result(self) -> None:
        worker, peer = self.connect()

        async def handler(payload: dict) -> dict:
            await asyncio.sleep(0)
            return {"echo": payload}

        worker.register_function("demo::echo", handler)
        peer.send(invoke("demo::echo", {"x": [1, "two", None]}))
        self.assertEqual(peer.next_of("invocationresult")["result"], {"echo": {"x": [1, "two", None]}})

    def test_handlers_get_metadata_when_they_take_two_arguments(self) -> None:
        worker, peer = self.connect()
        worker.register_function("demo::meta", lambda data, metadata: {"data": data, "metadata": metadata})
        peer.send(invoke("demo::meta", {"a": 1}, metadata={"k": "v"}))
        self.assertEqual(peer.next_of("invocationresult")["result"], {"data": {"a": 1}, "metadata": {"k": "v"}})

    def test_none_result_omits_the_result_field(self) -> None:
        worker, peer = self.connect()
        worker.register_function("demo::void", lambda p: None)
        peer.send(invoke("demo::void", {}))
        self.assertEqual(
            peer.next_of("invocationresult"),
            {"type": "invocationresult", "invocation_id": INVOCATION_ID, "function_id": "demo::void"},
        )

    def test_exception_becomes_invocation_failed_with_a_stacktrace(self) -> None:
        worker, peer = self.connect()

        def boom(payload: object) -> None:
            raise ValueError("boom")

        worker.register_function("demo::boom", boom)
        peer.send(invoke("demo::boom", {}))
        error = peer.next_of("invocationresult")["error"]
        self.assertEqual((error["code"], error["message"]), ("invocation_failed", "boom"))
        self.assertIn("ValueError: boom", error["stacktrace"])
        self.assertIn("in boom", error["stacktrace"])

    def test_exception_with_a_code_keeps_it(self) -> None:
        worker, peer = self.connect()

        async def sold_out(payload: object) -> None:
            raise CodedError('Item "42" is sold out')

        def not_found(payload: object) -> None:
            raise EngineError("not_found", 'Order "7" does not exist')

        worker.register_function("shop::buy", sold_out)
        worker.register_function("shop::order", not_found)
        peer.send(invoke("shop::buy", {}))
        error = peer.next_of("invocationresult")["error"]
        self.assertEqual((error["code"], error["message"]), ("out_of_stock", 'Item "42" is sold out'))
        peer.send(invoke("shop::order", {}))
        error = peer.next_of("invocationresult")["error"]
        self.assertEqual((error["code"], error["message"]), ("not_found", 'Order "7" does not exist'))

    def test_odd_exceptions_still_answer_the_caller(self) -> None:
        worker, peer = self.connect()
        cases = [
            # (handler, message of the error the caller gets)
            (raise_(UnprintableError()), "UnprintableError (str() of the exception raised RuntimeError)"),
            (raise_(BrokenCodeError("bad code")), "bad code"),
            (raise_(ValueError(b"\xff\xfe")), "b'\\xff\\xfe'"),
            (raise_(KeyboardInterrupt()), "KeyboardInterrupt"),
            (raise_(asyncio.CancelledError()), "CancelledError"),
            (cancelled_inside, "CancelledError"),
        ]
        for n, (handler, message) in enumerate(cases):
            with self.subTest(message=message):
                worker.register_function(f"odd::case{n}", handler)
                peer.send(invoke(f"odd::case{n}", {}))
                error = peer.next_of("invocationresult")["error"]
                self.assertEqual((error["code"], error["message"]), ("invocation_failed", message))
        self.assertTrue(worker.connected)

    def test_an_error_frame_is_logged_as_an_engine_error_with_its_code(self) -> None:
        # Not "the engine refused this worker": the engine sends it for a frame too large too.
        _, peer = self.connect()
        with self.assertLogs("engine_sdk", "ERROR") as logs:
            peer.send({"type": "error", "error": {"code": "frame_too_large", "message": "Frame of 20 MB"}})
            support.wait_until(lambda: bool(logs.output), "the error frame is logged")
        self.assertEqual(logs.output, ["ERROR:engine_sdk:Engine error frame_too_large: Frame of 20 MB"])

    def test_unserializable_result_is_reported_as_a_failure(self) -> None:
        worker, peer = self.connect()
        worker.register_function("demo::bad", lambda p: {"when": object()})
        peer.send(invoke("demo::bad", {}))
        error = peer.next_of("invocationresult")["error"]
        self.assertEqual(error["code"], "invocation_failed")
        self.assertIn('Cannot send the result of "demo::bad"', error["message"])

    def test_a_result_too_deep_to_encode_is_reported_as_a_failure(self) -> None:
        # json.dumps raises RecursionError (not TypeError/ValueError) past Python's recursion limit:
        # the caller got no answer at all and waited for its time-out.
        worker, peer = self.connect()

        def deep(payload: object) -> list:
            value: list = []
            for _ in range(100_000):
                value = [value]
            return value

        worker.register_function("demo::deep", deep)
        peer.send(invoke("demo::deep", {}))
        error = peer.next_of("invocationresult")["error"]
        self.assertEqual(error["code"], "invocation_failed")
        self.assertRegex(error["message"], '^Cannot send the result of "demo::deep": not JSON-serializable: .*nested too deeply')

    def test_a_result_too_large_for_the_engine_answers_frame_too_large_and_keeps_the_connection(self) -> None:
        # Sent, a result of 64 MiB or more made the engine end the connection: every call in flight
        # on it failed with invocation_stopped, and the caller never learnt why.
        worker, peer = self.connect()
        worker.register_function("demo::big", lambda p: "x" * (64 * 1024 * 1024))
        worker.register_function("demo::small", lambda p: "ok")
        peer.send(invoke("demo::big", {}))
        error = peer.next_of("invocationresult")["error"]
        self.assertEqual(error["code"], "frame_too_large")
        self.assertRegex(
            error["message"],
            r'^Result of "demo::big" is \d+ bytes, over the 67108863 bytes the engine takes in one message: it was not sent$',
        )
        peer.send(invoke("demo::small", {}, "aaaaaaaa-0000-4000-8000-000000000002"))
        self.assertEqual(peer.next_of("invocationresult")["result"], "ok")
        self.assertEqual(worker._session.conn.connections, 1)  # noqa: SLF001

    def test_unknown_function_answers_function_not_found(self) -> None:
        _, peer = self.connect()
        peer.send(invoke("does::not_exist", {}))
        self.assertEqual(
            peer.next_frame(),
            {
                "type": "invocationresult",
                "invocation_id": INVOCATION_ID,
                "function_id": "does::not_exist",
                "error": {"code": "function_not_found", "message": "Function not found"},
            },
        )

    def test_invoke_without_an_id_runs_but_is_not_answered(self) -> None:
        worker, peer = self.connect()
        ran = threading.Event()
        worker.register_function("fire::forget", lambda p: ran.set())
        worker.register_function("marker::done", lambda p: "marker")
        peer.next_of("registerfunction", None)
        peer.next_of("registerfunction", None)
        peer.send(invoke("fire::forget", {}, invocation_id=None))
        self.assertTrue(ran.wait(5))
        # The next answer on the wire is the marker's: the void call produced none.
        peer.send(invoke("marker::done", {}, invocation_id="aaaaaaaa-0000-4000-8000-000000000002"))
        self.assertEqual(peer.next_frame()["result"], "marker")

    def test_unknown_and_malformed_frames_are_ignored(self) -> None:
        worker, peer = self.connect()
        worker.register_function("demo::ok", lambda p: "ok")
        peer.next_of("registerfunction")
        peer.send("not json")
        peer.send("[1, 2]")
        peer.send({"type": "registrationrejected", "code": "X"})
        peer.send({"type": "invocationresult", "invocation_id": "unknown", "function_id": "x::y", "result": 1})
        peer.send(invoke("demo::ok", {}, extra_field=True))
        self.assertEqual(peer.next_frame()["result"], "ok")

    def test_an_integer_longer_than_python_converts_arrives_as_a_float(self) -> None:
        # engine-http passes a request body's integers on digit for digit: one of 5000 digits (over
        # the 4300 int() converts) made the whole frame undecodable, so it was ignored and the
        # request waited for its time-out. It arrives as JSON.parse (and json, for 1e5000) reads it.
        worker, peer = self.connect()
        worker.register_function("demo::n", lambda p: {"n": repr(p["n"]), "small": p["small"]})
        peer.next_of("registerfunction")
        peer.send(f'{{"type":"invokefunction","invocation_id":"{INVOCATION_ID}","function_id":"demo::n",'
                  f'"data":{{"n":{"9" * 5000},"small":12345678901234567890}}}}')
        self.assertEqual(peer.next_of("invocationresult")["result"], {"n": "inf", "small": 12345678901234567890})

    def test_concurrent_invocations_answer_out_of_order(self) -> None:
        worker, peer = self.connect()
        release = threading.Event()
        worker.register_function("slow::one", lambda p: (release.wait(5), "slow")[1])
        worker.register_function("fast::one", lambda p: "fast")
        peer.send(invoke("slow::one", {}, invocation_id="aaaaaaaa-0000-4000-8000-00000000000a"))
        peer.send(invoke("fast::one", {}, invocation_id="aaaaaaaa-0000-4000-8000-00000000000b"))
        self.assertEqual(peer.next_of("invocationresult")["result"], "fast")
        release.set()
        self.assertEqual(peer.next_of("invocationresult")["result"], "slow")


if __name__ == "__main__":
    unittest.main()
