"""A worker inside an asyncio program that owns its own loop (a FastAPI-style app)."""

from __future__ import annotations

import asyncio
import time
import unittest

import support


class AsyncioAppTest(support.WorkerTestCase):
    def test_shutdown_async_lets_a_handler_waiting_on_the_apps_loop_answer(self) -> None:
        # shutdown() blocks the thread it runs on: from the app's loop, a handler awaiting work of
        # that loop could not finish, and was cut off at the end of its drain time.
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)

        async def app() -> None:
            app_loop = asyncio.get_running_loop()
            started = asyncio.Event()

            async def app_work() -> str:
                started.set()
                await asyncio.sleep(0.2)
                return "done by the app"

            async def handler(payload: object) -> str:
                return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(app_work(), app_loop))

            worker.register_function("app::work", handler)
            peer.send({"type": "invokefunction", "invocation_id": "i-1", "function_id": "app::work", "data": {}})
            await asyncio.wait_for(started.wait(), 5)
            began = time.monotonic()
            await worker.shutdown_async(drain_timeout=3)
            self.assertLess(time.monotonic() - began, 2.5)

        asyncio.run(app())
        answer = peer.next_of("invocationresult")
        self.assertEqual(answer.get("result"), "done by the app", answer)
        self.assertEqual(peer.wait_closed(), 1000)
        self.assertFalse(worker.running)

    def test_wait_connected_waits_for_the_open_and_says_when_there_is_none(self) -> None:
        engine = self.start_engine(refuse_status=503)
        worker = self.start_worker(engine.url)
        self.assertFalse(worker.wait_connected(0.3))
        engine.refuse_status = None
        self.assertTrue(worker.wait_connected(5))
        self.assertTrue(worker.connected)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)  # the registrations went before it returned
        self.assertTrue(asyncio.run(worker.wait_connected_async(5)))
        worker.shutdown()
        self.assertFalse(worker.wait_connected(5))


if __name__ == "__main__":
    unittest.main()
