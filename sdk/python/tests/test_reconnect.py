"""Reconnecting: reattach, the replay of registrations and queued frames,
heartbeat pings and the idle deadline."""

from __future__ import annotations

import queue
import subprocess
import sys
import textwrap
import threading
import time
import unittest
import support

from engine_sdk import EngineError


class ReconnectTest(support.WorkerTestCase):
    def test_reconnect_reattaches_then_replays_registrations_queue_and_metadata(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        worker.register_function("demo::one", lambda p: p)
        trigger = worker.register_trigger({"type": "http", "function_id": "demo::one", "config": {"api_path": "/one"}})
        first = engine.wait_connection(1)
        support.skip_open_burst(first)

        engine.refuse_status = 503  # keep the worker disconnected until the test is ready
        first.drop()
        support.wait_until(lambda: not worker.connected, "the worker notices the drop")
        worker.register_function("demo::two", lambda p: p)
        call = support.in_thread(lambda: worker.trigger({"function_id": "while::down", "payload": {"q": 1}}))
        worker.trigger({"function_id": "log::it", "payload": {}, "action": {"type": "void"}})
        support.wait_until(lambda: engine.attempts >= 2, "a refused reconnect attempt")
        engine.refuse_status = None

        second = engine.wait_connection(2)
        frames = [second.next_frame() for _ in range(7)]
        self.assertEqual(
            frames[0],
            {"type": "reattach", "previous_worker_id": first.worker_id, "reattach_token": first.reattach_token},
        )
        self.assertEqual(frames[1], {"type": "registerfunction", "id": "demo::one"})
        self.assertEqual(frames[2], {"type": "registerfunction", "id": "demo::two"})
        self.assertEqual((frames[3]["type"], frames[3]["id"]), ("registertrigger", trigger.id))
        self.assertEqual((frames[4]["type"], frames[4]["function_id"]), ("invokefunction", "while::down"))
        self.assertEqual((frames[5]["type"], frames[5]["function_id"]), ("invokefunction", "log::it"))
        self.assertEqual(frames[6]["function_id"], "engine::workers::register")

        second.send({"type": "invocationresult", "invocation_id": frames[4]["invocation_id"],
                     "function_id": "while::down", "result": "after reconnect"})
        self.assertEqual(call.result(5), "after reconnect")
        self.assertEqual(worker.worker_id, second.worker_id)

    def test_a_call_sent_on_a_connection_that_closes_fails_at_once_with_invocation_stopped(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        first = engine.wait_connection(1)
        support.skip_open_burst(first)
        lost = support.in_thread(
            lambda: worker.trigger({"function_id": "slow::op", "payload": {}, "timeout_ms": 60000})
        )
        self.assertEqual(first.next_frame()["function_id"], "slow::op")
        first.run(lambda conn: conn.send_close(1011, "engine restarting"))
        with self.assertRaises(EngineError) as caught:
            lost.result(5)
        self.assertEqual(caught.exception.code, "invocation_stopped")
        self.assertEqual(caught.exception.function_id, "slow::op")
        self.assertEqual(
            caught.exception.message,
            f"Invocation stopped: the connection to the engine at {engine.url} closed "
            '(code 1011: engine restarting) before "slow::op" answered; it may have run',
        )

    def test_a_call_that_times_out_before_any_connection_says_it_was_never_sent(self) -> None:
        engine = self.start_engine(refuse_status=503)
        worker = self.start_worker(engine.url)
        with self.assertRaises(EngineError) as caught:
            worker.trigger({"function_id": "a::b", "payload": {}, "timeout_ms": 50})
        self.assertEqual(
            (caught.exception.code, caught.exception.message),
            ("TIMEOUT", "Invocation of a::b timed out after 50ms: not connected to the engine, so the call was never sent"),
        )

    def test_queued_calls_that_timed_out_are_not_sent(self) -> None:
        engine = self.start_engine(refuse_status=503)
        worker = self.start_worker(engine.url)
        with self.assertRaisesRegex(Exception, "TIMEOUT"):
            worker.trigger({"function_id": "stale::call", "payload": {}, "timeout_ms": 50})
        engine.refuse_status = None
        peer = engine.wait_connection(1)
        self.assertEqual(peer.next_frame()["function_id"], "engine::workers::register")

    def test_reattach_without_a_token_omits_it(self) -> None:
        engine = self.start_engine(send_registered=False)
        worker = self.start_worker(engine.url)
        first = engine.wait_connection(1)
        first.send({"type": "workerregistered", "worker_id": "w-1"})
        support.skip_open_burst(first)
        support.wait_until(lambda: worker.worker_id == "w-1", "the worker stores its id")
        first.drop()
        second = engine.wait_connection(2)
        self.assertEqual(second.next_frame(), {"type": "reattach", "previous_worker_id": "w-1"})

    def test_first_connection_sends_no_reattach(self) -> None:
        engine = self.start_engine()
        self.start_worker(engine.url)
        peer = engine.wait_connection(1)
        self.assertEqual(peer.next_frame()["function_id"], "engine::workers::register")

    def test_server_close_leads_to_a_reconnect(self) -> None:
        engine = self.start_engine()
        self.start_worker(engine.url)
        first = engine.wait_connection(1)
        support.skip_open_burst(first)
        first.run(lambda conn: conn.send_close(1012, "restarting"))
        second = engine.wait_connection(2)
        self.assertEqual(second.next_frame()["type"], "reattach")

    def test_refused_upgrades_are_retried(self) -> None:
        engine = self.start_engine(refuse_status=401)
        worker = self.start_worker(engine.url)
        support.wait_until(lambda: engine.attempts >= 3, "three attempts")
        self.assertFalse(worker.connected)
        engine.refuse_status = None
        engine.wait_connection(1)

    def test_heartbeat_pings_the_engine(self) -> None:
        engine = self.start_engine()
        self.start_worker(engine.url, heartbeat_interval_ms=30)
        peer = engine.wait_connection(1)
        support.wait_until(lambda: peer.ping_count >= 2, "two pings")

    def test_idle_connection_is_dropped_and_reopened(self) -> None:
        engine = self.start_engine(auto_pong=False)
        worker = self.start_worker(engine.url, heartbeat_interval_ms=30, idle_timeout_ms=150)
        first = engine.wait_connection(1)
        self.assertEqual(first.wait_closed(), 1006)  # dropped by the worker, without a close handshake
        self.assertGreater(first.ping_count, 0)
        engine.wait_connection(2)
        self.assertTrue(worker.running)

    def test_pongs_keep_an_idle_connection_alive(self) -> None:
        engine = self.start_engine(auto_pong=True)
        self.start_worker(engine.url, heartbeat_interval_ms=30, idle_timeout_ms=300)
        first = engine.wait_connection(1)
        support.wait_until(lambda: first.ping_count >= 25, "pings over more than twice the idle deadline")
        self.assertFalse(first.closed.is_set())
        self.assertEqual(len(engine.connections), 1)

    def test_an_idle_deadline_below_the_heartbeat_interval_pings_in_time(self) -> None:
        # Only idle_timeout_ms set (2 s here, with the 20 s default heartbeat): a quiet connection
        # to a live engine was dropped and reopened every idle_timeout_ms, as no ping went out
        # before the deadline to draw a pong.
        engine = self.start_engine(auto_pong=True)
        self.start_worker(engine.url, heartbeat_interval_ms=20_000, idle_timeout_ms=200)
        first = engine.wait_connection(1)
        support.wait_until(lambda: first.ping_count >= 5, "pings over more than twice the idle deadline")
        self.assertFalse(first.closed.is_set())
        self.assertEqual(len(engine.connections), 1)

    def test_an_async_handler_blocking_the_loop_past_the_idle_deadline_keeps_the_connection(self) -> None:
        # The engine sends nothing unasked: it was quiet because the blocked loop sent no ping, and
        # the worker dropped its own live connection (and failed every call in flight) at once.
        engine = self.start_engine(auto_pong=True)
        worker = self.start_worker(engine.url, heartbeat_interval_ms=50, idle_timeout_ms=300)
        first = engine.wait_connection(1)
        support.skip_open_burst(first)

        async def blocking(payload: object) -> str:
            time.sleep(0.6)  # a blocking call in an async handler: the whole loop waits
            return "done"

        worker.register_function("t::block", blocking)
        worker.register_function("t::echo", lambda payload: payload)
        first.next_of("registerfunction")
        first.next_of("registerfunction")
        first.send({"type": "invokefunction", "invocation_id": "i-1", "function_id": "t::block", "data": {}})
        self.assertEqual(first.next_of("invocationresult")["result"], "done")
        pings = first.ping_count
        support.wait_until(lambda: first.ping_count >= pings + 3, "pings after the stall")
        first.send({"type": "invokefunction", "invocation_id": "i-2", "function_id": "t::echo", "data": 7})
        self.assertEqual(first.next_of("invocationresult")["result"], 7)
        self.assertFalse(first.closed.is_set())
        self.assertEqual(len(engine.connections), 1)

    def test_a_worker_that_could_not_connect_says_so_in_its_log_once_it_connects(self) -> None:
        # With logging left unconfigured, as in most scripts: Python shows warnings and up only.
        engine = self.start_engine(listening=False)  # the port refuses connections, as with no engine
        source = textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {support.SDK_ROOT!r})
            from engine_sdk import register_worker

            worker = register_worker({engine.url!r}, {{"reconnect_initial_delay_ms": 20, "reconnect_max_delay_ms": 50}})
            sys.stdin.readline()
            worker.shutdown()
            """
        )
        proc = subprocess.Popen([sys.executable, "-c", source], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (proc.stdin.close(), proc.stderr.close()))  # type: ignore[union-attr]
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()  # type: ignore[union-attr]

        def next_line() -> str:
            try:
                return lines.get(timeout=5)
            except queue.Empty:
                raise AssertionError("the worker logged nothing more within 5s") from None

        self.assertTrue(next_line().startswith(f'Cannot connect to "{engine.url}": '))
        engine.listen()
        engine.wait_connection(1)
        self.assertEqual(next_line(), f'Connected to "{engine.url}"\n')
        proc.stdin.write("\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        self.assertEqual(proc.wait(10), 0)


if __name__ == "__main__":
    unittest.main()
