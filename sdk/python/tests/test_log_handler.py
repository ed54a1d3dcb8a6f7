"""EngineLogHandler: records of Python's logging module reach the engine's log."""

from __future__ import annotations

import logging
import unittest
import unittest.mock

import support
from engine_sdk import EngineLogHandler

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


class LogHandlerTest(support.WorkerTestCase):
    def setUp(self) -> None:
        self.log = logging.getLogger("app.orders")
        self.log.setLevel(logging.DEBUG)
        self.log.propagate = False
        self.addCleanup(setattr, self.log, "propagate", True)

    def attach(self, handler: logging.Handler) -> None:
        self.log.addHandler(handler)
        self.addCleanup(self.log.removeHandler, handler)

    def connect(self):  # noqa: ANN201
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        return worker, peer

    def test_each_level_becomes_a_record_of_the_engines_log(self) -> None:
        worker, peer = self.connect()
        self.attach(EngineLogHandler(worker=worker, service_name="shop"))
        cases = [
            (logging.DEBUG, "debug"),
            (logging.INFO, "info"),
            (logging.WARNING, "warn"),
            (logging.ERROR, "error"),
            (logging.CRITICAL, "error"),
        ]
        for levelno, level in cases:
            with self.subTest(level=logging.getLevelName(levelno)):
                self.log.log(levelno, "Order %s paid", 42, extra={"data": {"order_id": 42}})
                frame = peer.next_of("invokefunction", f"engine::log::{level}")
                self.assertEqual(frame["action"], {"type": "void"})
                self.assertEqual(
                    frame["data"],
                    {"message": "Order 42 paid", "data": {"logger": "app.orders", "data": {"order_id": 42}},
                     "service_name": "shop"},
                )

    def test_a_record_in_a_handler_carries_the_function_trace_and_traceback(self) -> None:
        worker, peer = self.connect()
        self.attach(EngineLogHandler())  # the worker of the handler it is logged in

        def pay(payload: dict) -> None:
            try:
                raise KeyError("card")
            except KeyError:
                self.log.exception("Payment failed")

        worker.register_function("orders::pay", pay)
        peer.send({"type": "invokefunction", "function_id": "orders::pay", "data": {}, "traceparent": TRACEPARENT})
        frame = peer.next_of("invokefunction", "engine::log::error")
        data = frame["data"]
        self.assertEqual(
            (data["function_id"], data["trace_id"], data["span_id"]),
            ("orders::pay", "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"),
        )
        self.assertRegex(data["message"], r"^Payment failed\nTraceback \(most recent call last\):\n(.|\n)*KeyError: 'card'$")

    def test_without_a_running_worker_nothing_is_sent_or_printed(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        worker.shutdown()
        self.attach(EngineLogHandler(worker=worker))
        with unittest.mock.patch("sys.stdout") as out, unittest.mock.patch("sys.stderr") as err:
            self.log.info("nobody listens")
        self.assertEqual((out.write.call_count, err.write.call_count), (0, 0))

    def test_a_record_logged_while_one_is_sent_is_not_sent(self) -> None:
        # On the root logger the handler also gets the SDK's own records: one logged by the sending
        # itself would be sent, and log again, until RecursionError.
        worker, peer = self.connect()
        self.attach(EngineLogHandler(worker=worker))
        original = worker._log  # noqa: SLF001

        def log_while_sending(level: str, payload: dict) -> None:
            self.log.warning("logged while sending")
            original(level, payload)

        worker._log = log_while_sending  # type: ignore[method-assign]  # noqa: SLF001
        self.log.info("once")
        frame = peer.next_frame()  # without the guard: records of "logged while sending", nested until RecursionError
        self.assertEqual((frame["function_id"], frame["data"]["message"]), ("engine::log::info", "once"))
        peer.assert_quiet()


if __name__ == "__main__":
    unittest.main()
