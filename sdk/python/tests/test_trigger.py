"""A worker calls functions through the engine with trigger() and trigger_async()."""

from __future__ import annotations

import asyncio
import time
import unittest
import uuid
from typing import Any

import support
from engine_sdk import EngineError, TriggerAction



def result(frame: dict, value: Any = None, error: Any = None) -> dict:
    answer = {"type": "invocationresult", "invocation_id": frame["invocation_id"], "function_id": frame["function_id"]}
    if error is not None:
        answer["error"] = error
    else:
        answer["result"] = value
    return answer


class TriggerTest(support.WorkerTestCase):
    def connect(self, **options: object):  # noqa: ANN201
        engine = self.start_engine()
        worker = self.start_worker(engine.url, **options)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        return worker, peer

    def test_trigger_sends_a_sync_call_and_returns_the_result(self) -> None:
        worker, peer = self.connect()
        call = support.in_thread(lambda: worker.trigger({"function_id": "remote::fn", "payload": {"x": 1}, "metadata": {"m": 1}}))
        frame = peer.next_frame()
        self.assertEqual(uuid.UUID(frame["invocation_id"]).version, 4)
        self.assertEqual(
            frame,
            {
                "type": "invokefunction",
                "invocation_id": frame["invocation_id"],
                "function_id": "remote::fn",
                "data": {"x": 1},
                "metadata": {"m": 1},
            },
        )
        peer.send(result(frame, {"y": 2}))
        self.assertEqual(call.result(5), {"y": 2})

    def test_trigger_raises_engine_error_with_the_code(self) -> None:
        worker, peer = self.connect()
        call = support.in_thread(lambda: worker.trigger({"function_id": "missing::fn", "payload": {}}))
        frame = peer.next_frame()
        peer.send(result(frame, error={"code": "function_not_found", "message": "Function missing::fn not found"}))
        with self.assertRaises(EngineError) as caught:
            call.result(5)
        err = caught.exception
        self.assertEqual((err.code, err.message, err.function_id), ("function_not_found", "Function missing::fn not found", "missing::fn"))
        self.assertEqual(str(err), "function_not_found: Function missing::fn not found")

    def test_a_result_with_an_integer_longer_than_python_converts_settles_the_call(self) -> None:
        worker, peer = self.connect()
        call = support.in_thread(lambda: worker.trigger({"function_id": "remote::fn", "payload": {}}))
        frame = peer.next_frame()
        peer.send(f'{{"type":"invocationresult","invocation_id":"{frame["invocation_id"]}",'
                  f'"function_id":"remote::fn","result":[-{"1" * 4500},7]}}')
        self.assertEqual(call.result(5), [float("-inf"), 7])

    def test_malformed_error_becomes_unknown(self) -> None:
        worker, peer = self.connect()
        call = support.in_thread(lambda: worker.trigger({"function_id": "a::b", "payload": {}}))
        peer.send(result(peer.next_frame(), error="plain string error"))
        with self.assertRaises(EngineError) as caught:
            call.result(5)
        self.assertEqual((caught.exception.code, caught.exception.message), ("UNKNOWN", "plain string error"))

    def test_trigger_times_out(self) -> None:
        worker, peer = self.connect()
        started = time.monotonic()
        with self.assertRaises(EngineError) as caught:
            worker.trigger({"function_id": "slow::fn", "payload": {}, "timeout_ms": 150})
        self.assertGreaterEqual(time.monotonic() - started, 0.14)
        self.assertEqual((caught.exception.code, caught.exception.message), ("TIMEOUT", "Invocation of slow::fn timed out after 150ms"))
        late = peer.next_frame()
        peer.send(result(late, "late"))  # ignored: nobody waits for it any more
        call = support.in_thread(lambda: worker.trigger({"function_id": "slow::fn", "payload": {}}))
        peer.send(result(peer.next_frame(), "fresh"))
        self.assertEqual(call.result(5), "fresh")

    def test_default_timeout_comes_from_the_options(self) -> None:
        worker, _ = self.connect(invocation_timeout_ms=100)
        with self.assertRaisesRegex(EngineError, "TIMEOUT: Invocation of slow::fn timed out after 100ms"):
            worker.trigger({"function_id": "slow::fn", "payload": {}})

    def test_void_call_has_no_id_and_returns_none_at_once(self) -> None:
        worker, peer = self.connect()
        self.assertIsNone(worker.trigger({"function_id": "fire::forget", "payload": {"z": 1}, "action": TriggerAction.void()}))
        self.assertEqual(
            peer.next_frame(),
            {"type": "invokefunction", "function_id": "fire::forget", "data": {"z": 1}, "action": {"type": "void"}},
        )

    def test_enqueue_call_waits_for_the_receipt(self) -> None:
        worker, peer = self.connect()
        call = support.in_thread(
            lambda: worker.trigger({"function_id": "queued::fn", "payload": {}, "action": TriggerAction.enqueue("jobs")})
        )
        frame = peer.next_frame()
        self.assertEqual(frame["action"], {"type": "enqueue", "queue": "jobs"})
        self.assertIn("invocation_id", frame)
        peer.send(result(frame, {"messageReceiptId": "r-1"}))
        self.assertEqual(call.result(5), {"messageReceiptId": "r-1"})

    def test_request_fields_are_checked(self) -> None:
        worker, _ = self.connect()
        with self.assertRaisesRegex(ValueError, 'Invalid "function_id"'):
            worker.trigger({"payload": {}})
        with self.assertRaisesRegex(ValueError, 'Invalid "action" for "a::b"'):
            worker.trigger({"function_id": "a::b", "payload": {}, "action": {"type": "later"}})
        # NaN passed (its timer fired at once or never) and 10**400 raised OverflowError.
        for timeout_ms in (0, float("nan"), 10**400, "5", True):
            with self.subTest(timeout_ms=timeout_ms):
                with self.assertRaisesRegex(ValueError, 'Invalid "timeout_ms" for "a::b": expected a positive number'):
                    worker.trigger({"function_id": "a::b", "payload": {}, "timeout_ms": timeout_ms})
        with self.assertRaisesRegex(ValueError, 'Cannot call "a::b": the payload is not JSON-serializable'):
            worker.trigger({"function_id": "a::b", "payload": {"x": object()}})
        with self.assertRaisesRegex(ValueError, 'Cannot call "a::b": the payload is not JSON-serializable'):
            worker.trigger({"function_id": "a::b", "payload": float("nan"), "action": TriggerAction.void()})

    def test_a_misspelt_request_key_is_refused_rather_than_ignored(self) -> None:
        # "data" for "payload" called with no payload; "timeoutMs" (the TypeScript spelling) kept the default.
        worker, peer = self.connect()
        for key in ("data", "timeoutMs", "timeout"):
            with self.subTest(key=key):
                with self.assertRaisesRegex(
                    ValueError, f'^Invalid trigger request for "a::b": unknown key \'{key}\' \\(the keys are function_id, '
                ):
                    worker.trigger({"function_id": "a::b", key: 1})
        peer.assert_quiet()

    def test_a_call_too_large_for_the_engine_fails_alone_and_is_not_sent(self) -> None:
        # The engine's server ends a connection sent a message of 64 MiB or more, failing every call
        # in flight on it: such a call is refused here, and the connection goes on.
        worker, peer = self.connect()
        big = "x" * (64 * 1024 * 1024)
        with self.assertRaises(EngineError) as caught:
            worker.trigger({"function_id": "a::b", "payload": big})
        err = caught.exception
        self.assertEqual((err.code, err.function_id), ("frame_too_large", "a::b"))
        self.assertRegex(
            err.message,
            r'^Call to "a::b" is \d+ bytes, over the 67108863 bytes the engine takes in one message: it was not sent$',
        )
        with self.assertRaisesRegex(EngineError, "^frame_too_large: Call to"):
            worker.trigger({"function_id": "a::b", "payload": big, "action": TriggerAction.void()})
        self.assertEqual(len(worker._session._calls), 0)  # noqa: SLF001
        del big
        call = support.in_thread(lambda: worker.trigger({"function_id": "a::c", "payload": 1}))
        frame = peer.next_frame()
        self.assertEqual(frame["function_id"], "a::c")
        peer.send(result(frame, 2))
        self.assertEqual(call.result(5), 2)

    def test_a_payload_too_deep_to_encode_is_refused_naming_the_function(self) -> None:
        worker, peer = self.connect()
        payload: list = []
        for _ in range(100_000):
            payload = [payload]
        with self.assertRaisesRegex(ValueError, '^Cannot call "a::b": the payload is not JSON-serializable: .*nested too deeply'):
            worker.trigger({"function_id": "a::b", "payload": payload, "timeout_ms": 60_000})
        # The refused call is not left waiting for its time-out.
        self.assertEqual(len(worker._session._calls), 0)  # noqa: SLF001

    def test_a_call_its_caller_cancelled_while_disconnected_is_not_sent_later(self) -> None:
        # asyncio.wait_for gave up on it, yet it stayed queued and ran on the engine once the
        # worker connected (within its time-out): a side effect nobody waited for.
        engine = self.start_engine(listening=False)
        worker = self.start_worker(engine.url, invocation_timeout_ms=60_000)

        async def give_up() -> None:
            await asyncio.wait_for(worker.trigger_async({"function_id": "orders::charge", "payload": {}}), 0.1)

        with self.assertRaises(asyncio.TimeoutError):
            asyncio.run(give_up())
        support.wait_until(lambda: len(worker._session._calls) == 0, "the cancelled call is forgotten")  # noqa: SLF001
        engine.listen()
        peer = engine.wait_connection()
        worker.trigger({"function_id": "after::it", "payload": {}, "action": TriggerAction.void()})
        # Every call the worker sends once connected, up to both of these (in either order: the
        # registration goes out as the connection opens, the trigger as soon as it is called).
        called: list[str] = []
        while not {"engine::workers::register", "after::it"} <= set(called):
            called.append(peer.next_of("invokefunction")["function_id"])
        self.assertNotIn("orders::charge", called)
        self.assertEqual(sorted(called), ["after::it", "engine::workers::register"])

    def test_text_goes_out_as_utf8_and_lone_surrogates_escaped(self) -> None:
        # As JSON.stringify writes it: "é" as its two UTF-8 bytes, not as the six of "\\u00e9"
        # (10 MB of accented text would be 30 MB on the wire, over the engine's frame limit).
        worker, peer = self.connect()
        cases = [("é" * 1000, "é".encode() * 1000), ("a\ud800b", b"a\\ud800b"), ("😀", "😀".encode())]
        for payload, wire in cases:
            with self.subTest(payload=payload[:5]):
                call = support.in_thread(lambda: worker.trigger({"function_id": "text::echo", "payload": payload}))
                frame = peer.next_of("invokefunction", "text::echo")
                self.assertEqual(frame["data"], payload)
                self.assertIn(b'"data":"' + wire + b'"', peer.texts[-1])
                peer.send(result(frame, payload))
                self.assertEqual(call.result(5), payload)

    def test_sync_handler_can_block_on_trigger(self) -> None:
        worker, peer = self.connect()

        def add_two(payload: dict) -> dict:
            total = worker.trigger({"function_id": "math::add", "payload": payload})
            return {"total": total["c"], "ok": True}

        worker.register_function("math::add_two", add_two)
        peer.send({"type": "invokefunction", "invocation_id": "aaaaaaaa-0000-4000-8000-000000000001",
                   "function_id": "math::add_two", "data": {"a": 1, "b": 2}})
        inner = peer.next_of("invokefunction", "math::add")
        peer.send(result(inner, {"c": 3}))
        self.assertEqual(peer.next_of("invocationresult")["result"], {"total": 3, "ok": True})

    def test_sync_handlers_blocked_on_trigger_leave_threads_for_the_calls_they_wait_on(self) -> None:
        # Every handler thread waits on a call that another handler of this worker must answer
        # (the engine routes the inner call back here): that one still gets a thread.
        worker, peer = self.connect(max_handler_threads=2)
        worker.register_function("math::inner", lambda payload: payload * 10)
        worker.register_function("math::outer", lambda payload: worker.trigger({"function_id": "math::inner", "payload": payload}))
        for n in (1, 2):
            peer.send({"type": "invokefunction", "invocation_id": f"aaaaaaaa-0000-4000-8000-00000000000{n}",
                       "function_id": "math::outer", "data": n})
        inner_calls = [peer.next_of("invokefunction", "math::inner") for _ in (1, 2)]
        for call in inner_calls:  # as the engine would: hand each inner call to the worker that has it
            peer.send({**call, "invocation_id": "b" + call["invocation_id"][1:]})
        answers = {}
        for _ in (1, 2):
            answer = peer.next_of("invocationresult")
            answers[answer["invocation_id"][0]] = answer
        self.assertEqual(answers["b"]["function_id"], "math::inner")
        for call in inner_calls:
            peer.send(result(call, call["data"] * 10))
        outer = {peer.next_of("invocationresult")["result"] for _ in (1, 2)}
        self.assertEqual(outer, {10, 20})

    def test_async_handler_awaits_trigger_async_and_cannot_block(self) -> None:
        worker, peer = self.connect()

        async def handler(payload: dict) -> dict:
            with self.assertRaisesRegex(RuntimeError, "trigger_async"):
                worker.trigger({"function_id": "math::add", "payload": payload})
            return await worker.trigger_async({"function_id": "math::add", "payload": payload})

        worker.register_function("math::add_async", handler)
        peer.send({"type": "invokefunction", "invocation_id": "aaaaaaaa-0000-4000-8000-000000000001",
                   "function_id": "math::add_async", "data": {"a": 1}})
        inner = peer.next_of("invokefunction", "math::add")
        peer.send(result(inner, {"c": 9}))
        self.assertEqual(peer.next_of("invocationresult")["result"], {"c": 9})

    def test_trigger_async_from_another_event_loop(self) -> None:
        worker, peer = self.connect()

        async def main() -> Any:
            return await worker.trigger_async({"function_id": "remote::fn", "payload": 1})

        call = support.in_thread(lambda: asyncio.run(main()))
        peer.send(result(peer.next_frame(), "from-another-loop"))
        self.assertEqual(call.result(5), "from-another-loop")

    def test_calls_made_before_the_connection_opens_are_queued(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        call = support.in_thread(lambda: worker.trigger({"function_id": "early::fn", "payload": 1}))
        peer = engine.wait_connection()
        frame = peer.next_of("invokefunction", "early::fn")
        peer.send(result(frame, "early"))
        self.assertEqual(call.result(5), "early")

    def test_shutdown_fails_pending_calls(self) -> None:
        worker, peer = self.connect()
        call = support.in_thread(lambda: worker.trigger({"function_id": "never::answers", "payload": {}}))
        peer.next_frame()
        worker.shutdown()
        with self.assertRaises(EngineError) as caught:
            call.result(5)
        self.assertEqual(caught.exception.code, "shutdown")
        self.assertEqual(caught.exception.message, "Invocation of never::answers stopped: the worker is shutting down")
        with self.assertRaisesRegex(EngineError, "shutdown"):
            worker.trigger({"function_id": "a::b", "payload": {}})


if __name__ == "__main__":
    unittest.main()
