"""The process's record of its running workers: left at shutdown, one exit hook for all."""

from __future__ import annotations

import atexit
import subprocess
import sys
import textwrap
import unittest

import support
from engine_sdk import _live
from engine_sdk.worker import default_worker

SCRIPT = textwrap.dedent(
    """
    import sys
    import time
    sys.path.insert(0, {sdk_root!r})
    from engine_sdk import register_worker

    options = {{"worker_name": "script", "reconnect_initial_delay_ms": 20}}
    workers = [register_worker({url!r}, options) for _ in range(3)]
    for worker in workers:
        worker.register_function(f"script::w{{id(worker)}}", lambda payload: "pong")
    while not all(worker.connected for worker in workers):
        time.sleep(0.01)
    workers[1].shutdown()
    print("ending", flush=True)
    """
)


class LiveWorkersTest(support.WorkerTestCase):
    def test_shutdown_forgets_the_worker_and_one_exit_hook_serves_all(self) -> None:
        engine = self.start_engine()
        before, hooks = _live.count(), atexit._ncallbacks()
        workers = [self.start_worker(engine.url) for _ in range(10)]
        self.assertEqual(_live.count(), before + 10)
        self.assertLessEqual(atexit._ncallbacks(), hooks + 1, "one hook for every worker")
        self.assertIs(default_worker(), workers[-1])
        workers[-1].shutdown()
        self.assertIs(default_worker(), workers[-2], "the newest worker still running")
        for worker in workers:
            worker.shutdown()
        self.assertEqual(_live.count(), before, "nothing is held for the workers shut down")

    def test_a_handler_shutting_its_worker_down_leaves_too(self) -> None:
        engine = self.start_engine()
        before = _live.count()
        worker = self.start_worker(engine.url)

        async def stop(payload: object) -> None:
            worker.shutdown()

        worker.register_function("admin::stop", stop)
        peer = engine.wait_connection(1)
        peer.next_of("registerfunction")
        peer.send({"type": "invokefunction", "invocation_id": "aaaaaaaa-0000-4000-8000-000000000001",
                   "function_id": "admin::stop", "data": {}})
        self.assertEqual(peer.wait_closed(), 1000)
        self.assertEqual(_live.count(), before)

    def test_the_exit_hook_closes_every_worker_still_running(self) -> None:
        engine = self.start_engine()
        source = SCRIPT.format(sdk_root=support.SDK_ROOT, url=engine.url)
        proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=30)
        self.assertEqual((proc.returncode, proc.stdout), (0, "ending\n"), proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        codes = [engine.wait_connection(n).wait_closed() for n in (1, 2, 3)]
        self.assertEqual(codes, [1000, 1000, 1000])


if __name__ == "__main__":
    unittest.main()
