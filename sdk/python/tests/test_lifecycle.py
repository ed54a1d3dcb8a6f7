"""Shutting a worker down: close code, signals, run_forever, scripts that just end."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
import unittest

import support
from engine_sdk import register_worker

SCRIPT = textwrap.dedent(
    """
    import signal
    import sys
    sys.path.insert(0, {sdk_root!r})
    # As in a foreground process: a test runner may start us with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from engine_sdk import register_worker

    worker = register_worker({url!r}, {{"worker_name": "script", "reconnect_initial_delay_ms": 20}})
    worker.register_function("script::ping", lambda payload: "pong")
    print("ready", flush=True)
    {tail}
    print("stopped", flush=True)
    """
)


class LifecycleTest(support.WorkerTestCase):
    def test_shutdown_closes_with_1000_and_is_idempotent(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection(1)
        worker.shutdown()
        self.assertEqual(peer.wait_closed(), 1000)
        self.assertFalse(worker.running)
        worker.shutdown()
        with self.assertRaisesRegex(RuntimeError, 'Cannot register function "a::b": the worker is shut down'):
            worker.register_function("a::b", lambda p: p)
        self.assertEqual(len(engine.connections), 1, "no reconnect after shutdown")

    def test_context_manager_shuts_down(self) -> None:
        engine = self.start_engine()
        with register_worker(engine.url, support.FAST) as worker:
            peer = engine.wait_connection(1)
            self.assertTrue(worker.running)
        self.assertEqual(peer.wait_closed(), 1000)

    def test_a_handler_can_shut_its_worker_down(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)

        async def stop(payload: object) -> None:
            worker.shutdown()

        worker.register_function("admin::stop", stop)
        peer = engine.wait_connection(1)
        peer.next_of("registerfunction")
        peer.send({"type": "invokefunction", "invocation_id": "aaaaaaaa-0000-4000-8000-000000000001",
                   "function_id": "admin::stop", "data": {}})
        self.assertEqual(peer.wait_closed(), 1000)
        worker.run_forever()  # returns at once: the worker is already stopped
        self.assertFalse(worker.running)

    def run_script(self, tail: str) -> tuple[subprocess.Popen[str], object]:
        engine = self.start_engine()
        source = SCRIPT.format(sdk_root=support.SDK_ROOT, url=engine.url, tail=tail)
        proc = subprocess.Popen([sys.executable, "-c", source], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.stdin.close())  # type: ignore[union-attr]
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        self.addCleanup(lambda: (proc.stdout.close(), proc.stderr.close()))  # type: ignore[union-attr]
        self.assertEqual(proc.stdout.readline(), "ready\n")  # type: ignore[union-attr]
        peer = engine.wait_connection(1)
        self.assertEqual(peer.next_of("registerfunction")["id"], "script::ping")
        return proc, peer

    def assert_clean_exit(self, proc: subprocess.Popen[str], peer: object) -> None:
        out, err = proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(out, "stopped\n")
        self.assertNotIn("Traceback", err)
        self.assertEqual(peer.wait_closed(), 1000)  # type: ignore[attr-defined]

    def wait_for_sigterm_handler(self, pid: int, timeout: float = 10.0) -> None:
        """run_forever installs its SIGTERM handler after "ready" is printed: wait until the
        kernel shows the signal as caught (bit 15 of SigCgt), so the test does not race it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(f"/proc/{pid}/status") as status:
                caught = next(line for line in status if line.startswith("SigCgt:"))
            if int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)):
                return
            time.sleep(0.005)
        self.fail(f"process {pid} never installed a SIGTERM handler")

    def test_run_forever_exits_cleanly_on_sigterm(self) -> None:
        proc, peer = self.run_script("worker.run_forever()")
        self.wait_for_sigterm_handler(proc.pid)
        proc.send_signal(signal.SIGTERM)
        self.assert_clean_exit(proc, peer)

    def test_run_forever_exits_cleanly_on_sigint(self) -> None:
        proc, peer = self.run_script("worker.run_forever()")
        # A SIGINT before run_forever() waits is Python's own KeyboardInterrupt at the call: its
        # SIGTERM handler, installed as the wait begins, says the wait is there.
        self.wait_for_sigterm_handler(proc.pid)
        proc.send_signal(signal.SIGINT)
        self.assert_clean_exit(proc, peer)

    def test_run_forever_keeps_serving_until_signalled(self) -> None:
        proc, peer = self.run_script("worker.run_forever()")
        peer.send({"type": "invokefunction", "invocation_id": "aaaaaaaa-0000-4000-8000-000000000001",  # type: ignore[attr-defined]
                   "function_id": "script::ping", "data": {}})
        self.assertEqual(peer.next_of("invocationresult")["result"], "pong")  # type: ignore[attr-defined]
        self.assertIsNone(proc.poll())
        proc.send_signal(signal.SIGTERM)
        self.assert_clean_exit(proc, peer)

    def test_sigterm_ends_the_process_while_a_sync_handler_still_runs(self) -> None:
        # The engine's supervisor stops a worker with SIGTERM and kills it after a grace period:
        # a handler that does not return must not keep the process alive past run_forever().
        tail = textwrap.dedent(
            """
            import threading
            def hang(payload):
                print("handling", flush=True)
                threading.Event().wait()
            worker.register_function("script::hang", hang)
            worker.run_forever(drain_timeout=0.2)
            """
        )
        proc, peer = self.run_script(tail)
        self.assertEqual(peer.next_of("registerfunction")["id"], "script::hang")  # type: ignore[attr-defined]
        self.wait_for_sigterm_handler(proc.pid)
        peer.send({"type": "invokefunction", "invocation_id": "aaaaaaaa-0000-4000-8000-000000000001",  # type: ignore[attr-defined]
                   "function_id": "script::hang", "data": {}})
        self.assertEqual(proc.stdout.readline(), "handling\n")  # type: ignore[union-attr]
        proc.send_signal(signal.SIGTERM)
        self.assert_clean_exit(proc, peer)

    def test_sigterm_lets_running_handlers_answer_and_refuses_new_calls(self) -> None:
        # A rolling restart stops workers with SIGTERM: the calls they are running must still
        # reach their callers (as the TypeScript SDK's shutdown() drains them), not be cut off.
        tail = textwrap.dedent(
            """
            def slow(payload):
                print("handling", flush=True)
                sys.stdin.readline()  # until the test lets it finish
                return "done"
            worker.register_function("script::slow", slow)
            worker.run_forever()
            """
        )
        proc, peer = self.run_script(tail)
        self.assertEqual(peer.next_of("registerfunction")["id"], "script::slow")  # type: ignore[attr-defined]
        self.wait_for_sigterm_handler(proc.pid)
        peer.send({"type": "invokefunction", "invocation_id": "aaaaaaaa-0000-4000-8000-000000000001",  # type: ignore[attr-defined]
                   "function_id": "script::slow", "data": {}})
        self.assertEqual(proc.stdout.readline(), "handling\n")  # type: ignore[union-attr]
        proc.send_signal(signal.SIGTERM)
        # A call that arrives while the worker drains is refused at once, not left to time out.
        # The signal is handled a moment after it is sent: calls before that are still answered.
        refused: dict[str, object] = {}
        # Bounded by time, not by a count of calls: on a loaded machine the signal can take seconds.
        deadline = time.monotonic() + 30
        n = 1
        while time.monotonic() < deadline:
            n += 1
            call_id = f"aaaaaaaa-0000-4000-8000-{n:012d}"
            peer.send({"type": "invokefunction", "invocation_id": call_id,  # type: ignore[attr-defined]
                       "function_id": "script::ping", "data": {}})
            refused = peer.next_of("invocationresult")  # type: ignore[attr-defined]
            self.assertEqual(refused["invocation_id"], call_id)
            if "error" in refused:
                break
            self.assertEqual(refused["result"], "pong")
            time.sleep(0.01)
        self.assertEqual(refused.get("error"), {"code": "shutdown", "message": "Worker is shutting down"})
        proc.stdin.write("go\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        answered = peer.next_of("invocationresult")  # type: ignore[attr-defined]
        self.assertEqual((answered["invocation_id"], answered.get("result")),
                         ("aaaaaaaa-0000-4000-8000-000000000001", "done"))
        self.assert_clean_exit(proc, peer)

    def test_a_script_that_calls_a_function_and_ends_closes_its_connection(self) -> None:
        proc, peer = self.run_script('print(worker.trigger({"function_id": "peer::answer", "payload": {}}))')
        call = peer.next_of("invokefunction", "peer::answer")  # type: ignore[attr-defined]
        peer.send({"type": "invocationresult", "invocation_id": call["invocation_id"],  # type: ignore[attr-defined]
                   "function_id": "peer::answer", "result": 42})
        out, err = proc.communicate(timeout=10)
        self.assertEqual((proc.returncode, out), (0, "42\nstopped\n"), err)
        self.assertEqual(peer.wait_closed(), 1000)  # type: ignore[attr-defined]


if __name__ == "__main__":
    unittest.main()
