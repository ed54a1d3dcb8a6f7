"""A worker and ``engine.batch.v1``: offered by default, several frames per message both ways once
the engine chooses it, one frame per message otherwise, refused when chosen without an offer."""

from __future__ import annotations

import asyncio
import json
import unittest
from typing import Any

import support
import test_reconnect
import ws_server
from engine_peer import BATCH_PROTOCOL, ScriptedEngine
from engine_sdk import Logger, TriggerAction
from engine_sdk.batch import LARGEST_BATCH
from engine_sdk.connection import Connection
from engine_sdk.options import to_options


def invoke(invocation_id: str, function_id: str, data: object) -> dict:
    return {"type": "invokefunction", "invocation_id": invocation_id, "function_id": function_id, "data": data}


def frames_of(message: bytes) -> list[dict]:
    return [json.loads(line) for line in message.split(b"\n") if line]


async def square(n: int) -> int:
    return n * n


class BatchWorkerTest(support.WorkerTestCase):
    def test_offers_it_and_once_chosen_reads_and_sends_several_frames_per_message(self) -> None:
        engine = self.start_engine(batch=True, listening=False)
        worker = self.start_worker(engine.url)
        worker.register_function("t::square", square)
        engine.listen()
        peer = engine.wait_connection()
        self.assertEqual(peer.headers["sec-websocket-protocol"], BATCH_PROTOCOL)
        self.assertTrue(peer.batch)
        support.skip_open_burst(peer)
        # The open burst (registration, then the worker's metadata) left as one message.
        burst = [frame.get("type") for frame in frames_of(peer.texts[0])]
        self.assertEqual(burst, ["registerfunction", "invokefunction"])

        before = len(peer.texts)
        peer.send_batch([invoke(f"i{n}", "t::square", n) for n in (1, 2, 3)])
        results = [peer.next_of("invocationresult")["invocation_id"] for _ in range(3)]
        self.assertEqual(results, ["i1", "i2", "i3"])
        carrying = [m for m in peer.texts[before:] if b"invocationresult" in m]
        self.assertEqual(len(carrying), 1, f"one message for the three results: {carrying}")
        self.assertEqual(
            [(f["invocation_id"], f["result"]) for f in frames_of(carrying[0])], [("i1", 1), ("i2", 4), ("i3", 9)]
        )

    def test_frames_sent_from_handler_threads_keep_their_order(self) -> None:
        engine = self.start_engine(batch=True)
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)

        def fire(count: int) -> str:
            for i in range(count):
                worker.trigger({"function_id": "t::sink", "payload": i, "action": TriggerAction.void()})
            return "fired"

        worker.register_function("t::fire", fire)
        peer.next_of("registerfunction")
        peer.send(invoke("f1", "t::fire", 30))
        seen = [peer.next_frame() for _ in range(31)]
        self.assertEqual([f.get("data") for f in seen[:30]], list(range(30)))
        self.assertEqual((seen[30]["type"], seen[30]["result"]), ("invocationresult", "fired"))

    def test_frames_an_async_handler_sends_leave_in_the_order_it_sent_them(self) -> None:
        # On the loop thread, registering and logging went through call_soon_threadsafe while
        # trigger_async() and the result went out at once: the engine got the call before the
        # registration of the function it named (function_not_found) and the log after the result.
        for batch in (True, False):
            with self.subTest(batch=batch):
                engine = self.start_engine(batch=batch)
                worker = self.start_worker(engine.url)
                peer = engine.wait_connection()
                support.skip_open_burst(peer)

                async def setup(payload: object) -> str:
                    worker.register_function("t::added", square)
                    Logger().info("added")
                    await worker.trigger_async({"function_id": "t::added", "payload": 2, "action": TriggerAction.void()})
                    return "done"

                worker.register_function("t::setup", setup)
                peer.next_of("registerfunction")
                peer.send(invoke("s1", "t::setup", None))
                seen = [peer.next_frame() for _ in range(4)]
                self.assertEqual(
                    [(f["type"], f.get("id") or f.get("function_id")) for f in seen],
                    [
                        ("registerfunction", "t::added"),
                        ("invokefunction", "engine::log::info"),
                        ("invokefunction", "t::added"),
                        ("invocationresult", "t::setup"),
                    ],
                )

    def test_a_long_batch_with_a_bad_line_crlf_and_empty_lines_is_handled_in_order(self) -> None:
        engine = self.start_engine(batch=True)
        worker = self.start_worker(engine.url)
        worker.register_function("t::square", square)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        count = 3000
        lines = [json.dumps(invoke("c0", "t::square", 0)), "{not json", "", " \t", json.dumps(invoke("c1", "t::square", 1))]
        lines += [json.dumps(invoke(f"c{n}", "t::square", n)) for n in range(2, count)]
        with self.assertLogs("engine_sdk", "WARNING") as logged:
            peer.run(lambda conn: conn.send_text("\r\n".join(lines) + "\r\n"))
            peer.run(lambda conn: conn.send_frame(ws_server.PING, b"hb"))  # read once the batch is through
            results = [peer.next_of("invocationresult") for _ in range(count)]
        # The blank lines ("\r" and " \t\r") are skipped, as the engine does: only the bad line is logged.
        self.assertEqual([r.getMessage().split(":")[0] for r in logged.records], ["Ignoring an inbound frame that is not JSON"])
        self.assertEqual([(r["invocation_id"], r["result"]) for r in results], [(f"c{n}", n * n) for n in range(count)])
        support.wait_until(lambda: peer.conn.pongs == [b"hb"], "the ping after the batch was answered")
        peer.send(invoke("after", "t::square", 7))  # still reading
        self.assertEqual(peer.next_of("invocationresult")["result"], 49)

    def test_frames_sent_right_before_shutdown_leave_before_the_close(self) -> None:
        engine = self.start_engine(batch=True)
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        logger = Logger()
        for i in range(5):
            logger.info(f"log {i}")
            worker.trigger({"function_id": "t::sink", "payload": i, "action": TriggerAction.void()})
        worker.shutdown()
        self.assertEqual(peer.wait_closed(), 1000)
        sent = [peer.next_frame(0) for _ in range(10)]
        expected = [part for i in range(5) for part in ("engine::log::info", "t::sink")]
        self.assertEqual([f["function_id"] for f in sent], expected)

    def test_batch_frames_false_offers_nothing_and_sends_one_frame_per_message(self) -> None:
        engine = self.start_engine(batch=True)
        worker = self.start_worker(engine.url, batch_frames=False)
        worker.register_function("t::square", square)
        peer = engine.wait_connection()
        self.assertNotIn("sec-websocket-protocol", peer.headers)
        self.assertFalse(peer.batch)
        self.assert_one_frame_per_message(peer)

    def test_a_max_message_bytes_below_a_batch_offers_nothing(self) -> None:
        # The engine's batches reach 192 KiB: a worker that takes less gets one frame per message.
        for limit, offered in ((LARGEST_BATCH - 1, False), (LARGEST_BATCH, True)):
            with self.subTest(limit=limit):
                engine = self.start_engine(batch=True)
                worker = self.start_worker(engine.url, max_message_bytes=limit)
                worker.register_function("t::square", square)
                peer = engine.wait_connection()
                self.assertEqual("sec-websocket-protocol" in peer.headers, offered)
                self.assertEqual(peer.batch, offered)

    def test_an_engine_that_does_not_choose_it_gets_one_frame_per_message(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        worker.register_function("t::square", square)
        peer = engine.wait_connection()
        self.assertEqual(peer.headers["sec-websocket-protocol"], BATCH_PROTOCOL)
        self.assertFalse(peer.batch)
        self.assert_one_frame_per_message(peer)

    def test_without_it_a_message_with_line_feeds_is_one_frame(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        worker.register_function("t::square", square)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        peer.send(json.dumps(invoke("p1", "t::square", 5), indent=2))  # pretty-printed: line feeds
        self.assertEqual(peer.next_of("invocationresult")["result"], 25)

    def assert_one_frame_per_message(self, peer: object) -> None:
        support.skip_open_burst(peer)
        for n in (1, 2, 3):
            peer.send(invoke(f"i{n}", "t::square", n))  # type: ignore[attr-defined]
        results = sorted(peer.next_of("invocationresult")["result"] for _ in range(3))  # type: ignore[attr-defined]
        self.assertEqual(results, [1, 4, 9])
        for message in peer.texts:  # type: ignore[attr-defined]
            self.assertIsInstance(json.loads(message), dict)
            self.assertNotIn(b"\n", message)

    def test_an_engine_choosing_a_subprotocol_not_offered_is_refused(self) -> None:
        for chosen, options in (("other", {}), (BATCH_PROTOCOL, {"batch_frames": False})):
            with self.subTest(chosen=chosen, options=options):
                engine = self.start_engine(protocol=chosen)
                worker = self.start_worker(engine.url, **options)
                support.wait_until(lambda: engine.attempts >= 2, "the worker tried twice")
                self.assertFalse(worker.connected)
                self.assertEqual(engine.connections[0].headers.get("sec-websocket-protocol"), None if options else BATCH_PROTOCOL)

    def test_batch_frames_must_be_a_bool(self) -> None:
        with self.assertRaisesRegex(ValueError, 'Invalid worker option "batch_frames": expected True or False, got 1'):
            to_options({"batch_frames": 1})
        self.assertTrue(to_options(None).batch_frames)


class BatchedReconnectTest(test_reconnect.ReconnectTest):
    """The reconnect rules again with ``engine.batch.v1`` chosen, where the open burst and the
    outbox leave in one message: reattach, then the registrations, then the calls made while
    disconnected, then the metadata; a call in flight on a dropped connection fails at once."""

    def start_engine(self, **options: Any) -> ScriptedEngine:
        return super().start_engine(**{"batch": True, **options})


class BatchConnectionTest(unittest.IsolatedAsyncioTestCase):
    """The connection itself: what is batched at its end is flushed or dropped."""

    async def asyncSetUp(self) -> None:
        self.engine = ScriptedEngine(batch=True)
        self.engine.__enter__()
        self.addCleanup(self.engine.__exit__, None, None, None)
        self.opened = asyncio.Event()
        self.conn = Connection(
            self.engine.url, {}, to_options(support.FAST), self.opened.set, lambda frame: None, lambda code, why: None
        )
        self.conn.start()
        self.addAsyncCleanup(self.conn.stop)
        await asyncio.wait_for(self.opened.wait(), 5)

    async def test_frames_sent_just_before_stop_go_out_before_the_close(self) -> None:
        self.assertEqual(self.conn.protocol, BATCH_PROTOCOL)
        for i in range(3):
            self.conn.send({"type": "ping", "n": i})
        await self.conn.stop()
        self.assertEqual(self.conn.protocol, "")
        peer = await asyncio.to_thread(self.engine.wait_connection)
        self.assertEqual(await asyncio.to_thread(peer.wait_closed), 1000)
        self.assertEqual([frame["n"] for frame in frames_of(peer.texts[-1])], [0, 1, 2])
        self.assertEqual(len(peer.texts), 1)

    async def test_frames_batched_on_a_dropped_connection_do_not_reach_the_next(self) -> None:
        self.opened.clear()
        self.conn.send({"type": "ping", "n": "lost"})
        self.conn.drop()
        await asyncio.wait_for(self.opened.wait(), 5)
        self.conn.send({"type": "ping", "n": "after"})
        second = await asyncio.to_thread(self.engine.wait_connection, 2)
        frame = await asyncio.to_thread(second.next_frame)
        self.assertEqual(frame["n"], "after")
        self.assertEqual(self.engine.connections[0].texts, [])


if __name__ == "__main__":
    unittest.main()
