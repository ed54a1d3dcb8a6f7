"""A worker provides a trigger type: register_trigger_type, the answers to the
engine's registertrigger / unregistertrigger, and the replay on reconnect."""

from __future__ import annotations

import queue
import threading
import unittest
from typing import Any

import support
from engine_sdk import TriggerConfig

WAIT = 5.0


class Recorder:
    """A handler that records its calls; ``register_trigger`` refuses a non-positive ``every``."""

    def __init__(self) -> None:
        self.calls: queue.Queue[tuple[str, TriggerConfig]] = queue.Queue()

    def register_trigger(self, trigger: TriggerConfig) -> None:
        every = trigger.config.get("every") if isinstance(trigger.config, dict) else None
        if not isinstance(every, int) or every <= 0:
            raise ValueError(f'"every" must be a positive number, got {every!r}')
        self.calls.put(("register", trigger))

    def unregister_trigger(self, trigger: TriggerConfig) -> None:
        self.calls.put(("unregister", trigger))

    def next(self) -> tuple[str, TriggerConfig]:
        try:
            return self.calls.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no handler call within {WAIT}s") from None

    def assert_no_call(self) -> None:
        if not self.calls.empty():
            raise AssertionError(f"unexpected handler call {self.calls.get()}")


class Slow:
    """A handler whose ``register_trigger`` blocks until ``release`` is set; it records the order of calls."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.order: queue.Queue[str] = queue.Queue()

    def register_trigger(self, trigger: TriggerConfig) -> None:
        self.order.put("register started")
        self.release.wait(WAIT)
        self.order.put("register done")

    def unregister_trigger(self, trigger: TriggerConfig) -> None:
        self.order.put("unregister")

    def next(self) -> str:
        return self.order.get(timeout=WAIT)


def bind(trigger_id: str, config: Any, trigger_type: str = "ticker", **extra: Any) -> dict[str, Any]:
    """The engine's ``registertrigger`` to a provider."""
    return {"type": "registertrigger", "id": trigger_id, "trigger_type": trigger_type,
            "function_id": "demo::tick", "config": config, **extra}


def accepted(trigger_id: str, trigger_type: str = "ticker") -> dict[str, Any]:
    return {"type": "triggerregistrationresult", "id": trigger_id, "trigger_type": trigger_type,
            "function_id": "demo::tick"}


class TriggerTypeTest(support.WorkerTestCase):
    def provide(self, handler: Any = None):  # noqa: ANN201
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        handler = handler or Recorder()
        ref = worker.register_trigger_type({"id": "ticker", "description": "Ticks"}, handler)
        peer = engine.wait_connection()
        support.skip_open_burst(peer)
        return worker, peer, handler, ref

    def test_the_type_is_registered_and_a_trigger_is_accepted_with_all_its_fields(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        handler = Recorder()
        ref = worker.register_trigger_type({"id": "ticker", "description": "Ticks"}, handler)
        self.assertEqual(ref.id, "ticker")
        peer = engine.wait_connection()
        self.assertEqual(peer.next_of("registertriggertype"),
                         {"type": "registertriggertype", "id": "ticker", "description": "Ticks"})
        peer.send(bind("t-A", {"every": 5}, metadata={"k": "v"}))
        self.assertEqual(peer.next_of("triggerregistrationresult"), accepted("t-A"))
        self.assertEqual(handler.next(), ("register", TriggerConfig("t-A", "ticker", "demo::tick", {"every": 5}, {"k": "v"})))

    def test_an_exception_in_register_trigger_refuses_the_trigger_naming_it(self) -> None:
        _, peer, handler, _ = self.provide()
        peer.send(bind("t-B", {"every": 0}))
        self.assertEqual(peer.next_of("triggerregistrationresult"), {
            **accepted("t-B"),
            "error": {
                "code": "trigger_registration_failed",
                "message": 'Cannot register trigger "t-B" (ticker) for "demo::tick": "every" must be a positive number, got 0',
            },
        })
        peer.send({"type": "unregistertrigger", "id": "t-B", "trigger_type": "ticker"})
        peer.send(bind("t-C", {"every": 1}))  # a signal that the unregistertrigger was handled
        self.assertEqual(peer.next_of("triggerregistrationresult"), accepted("t-C"))
        self.assertEqual(handler.next()[0:1], ("register",))
        handler.assert_no_call()  # a refused trigger is never unregistered

    def test_an_exception_with_a_code_keeps_it(self) -> None:
        class Refusing:
            def register_trigger(self, trigger: TriggerConfig) -> None:
                raise type("QuotaError", (Exception,), {"code": "quota_exceeded"})("10 triggers at most")

            def unregister_trigger(self, trigger: TriggerConfig) -> None:
                pass

        _, peer, _, _ = self.provide(Refusing())
        peer.send(bind("t-Q", {}))
        self.assertEqual(peer.next_of("triggerregistrationresult")["error"], {
            "code": "quota_exceeded",
            "message": 'Cannot register trigger "t-Q" (ticker) for "demo::tick": 10 triggers at most',
        })

    def test_an_exception_whose_str_raises_still_refuses_the_trigger(self) -> None:
        class Unprintable(Exception):
            def __str__(self) -> str:
                raise RuntimeError("no text")

        class Refusing:
            def register_trigger(self, trigger: TriggerConfig) -> None:
                raise Unprintable()

            def unregister_trigger(self, trigger: TriggerConfig) -> None:
                pass

        _, peer, _, _ = self.provide(Refusing())
        peer.send(bind("t-U", {}))
        self.assertEqual(peer.next_of("triggerregistrationresult")["error"], {
            "code": "trigger_registration_failed",
            "message": 'Cannot register trigger "t-U" (ticker) for "demo::tick": '
                       "Unprintable (str() of the exception raised RuntimeError)",
        })

    def test_a_trigger_of_a_type_not_provided_here_is_refused(self) -> None:
        _, peer, _, _ = self.provide()
        peer.send(bind("t-N", {}, trigger_type="nope"))
        self.assertEqual(peer.next_of("triggerregistrationresult")["error"], {
            "code": "trigger_type_not_found",
            "message": 'Cannot register trigger "t-N" (nope) for "demo::tick": this worker does not provide trigger type "nope"',
        })

    def test_unregistertrigger_gives_the_handler_the_whole_trigger(self) -> None:
        _, peer, handler, _ = self.provide()
        peer.send(bind("t-A", {"every": 5}))
        peer.next_of("triggerregistrationresult")
        self.assertEqual(handler.next()[0], "register")
        peer.send({"type": "unregistertrigger", "id": "t-A", "trigger_type": "ticker"})
        self.assertEqual(handler.next(), ("unregister", TriggerConfig("t-A", "ticker", "demo::tick", {"every": 5})))

    def test_async_handlers_run_on_the_loop_and_a_dict_handler_works(self) -> None:
        seen: queue.Queue[str] = queue.Queue()

        async def register(trigger: TriggerConfig) -> None:
            if trigger.config == "bad":
                raise ValueError("bad config")
            seen.put(f"register {trigger.id}")

        async def unregister(trigger: TriggerConfig) -> None:
            seen.put(f"unregister {trigger.id}")

        _, peer, _, _ = self.provide({"register_trigger": register, "unregister_trigger": unregister})
        peer.send(bind("t-1", "ok"))
        self.assertEqual(peer.next_of("triggerregistrationresult"), accepted("t-1"))
        peer.send(bind("t-2", "bad"))
        self.assertIn("bad config", peer.next_of("triggerregistrationresult")["error"]["message"])
        peer.send({"type": "unregistertrigger", "id": "t-1"})
        self.assertEqual([seen.get(timeout=WAIT), seen.get(timeout=WAIT)], ["register t-1", "unregister t-1"])

    def provide_slow(self):  # noqa: ANN201
        """A provider whose handler is deciding trigger "t-S" (blocked until ``slow.release`` is set)."""
        slow = Slow()
        _, peer, _, ref = self.provide(slow)
        peer.send(bind("t-S", {}))
        self.assertEqual(slow.next(), "register started")
        return peer, ref, slow

    def test_an_unregister_waits_for_the_register_still_being_decided(self) -> None:
        peer, _, slow = self.provide_slow()
        peer.send({"type": "unregistertrigger", "id": "t-S", "trigger_type": "ticker"})
        slow.release.set()
        self.assertEqual(peer.next_of("triggerregistrationresult"), accepted("t-S"))
        self.assertEqual([slow.next(), slow.next()], ["register done", "unregister"])

    def test_a_trigger_accepted_after_its_type_was_unregistered_is_let_go(self) -> None:
        peer, ref, slow = self.provide_slow()
        ref.unregister()
        self.assertEqual(peer.next_of("unregistertriggertype")["id"], "ticker")
        slow.release.set()
        self.assertEqual(peer.next_of("triggerregistrationresult")["error"], {
            "code": "trigger_type_not_found",
            "message": 'Cannot register trigger "t-S" (ticker) for "demo::tick": trigger type "ticker" was unregistered meanwhile',
        })
        self.assertEqual([slow.next(), slow.next()], ["register done", "unregister"])

    def test_types_are_replayed_first_on_reconnect_and_their_triggers_let_go_until_handed_back(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        handler = Recorder()
        worker.register_trigger_type({"id": "ticker", "description": "Ticks"}, handler)
        worker.register_function("demo::tick", lambda p: p)
        trigger = worker.register_trigger({"type": "ticker", "function_id": "demo::tick", "config": {"every": 1}})
        first = engine.wait_connection(1)
        support.skip_open_burst(first)
        first.send(bind("t-A", {"every": 5}))
        first.next_of("triggerregistrationresult")
        self.assertEqual(handler.next()[0], "register")

        first.drop()
        self.assertEqual(handler.next(), ("unregister", TriggerConfig("t-A", "ticker", "demo::tick", {"every": 5})))
        second = engine.wait_connection(2)
        kinds = [(f["type"], f.get("id") or f.get("function_id")) for f in (second.next_frame() for _ in range(5))]
        self.assertEqual(kinds, [
            ("reattach", None),
            ("registertriggertype", "ticker"),
            ("registerfunction", "demo::tick"),
            ("registertrigger", trigger.id),
            ("invokefunction", "engine::workers::register"),
        ])
        second.send(bind("t-A", {"every": 5}))
        self.assertEqual(second.next_of("triggerregistrationresult"), accepted("t-A"))
        self.assertEqual(handler.next()[0], "register")

    def test_the_same_trigger_handed_over_twice_is_registered_once(self) -> None:
        _, peer, handler, _ = self.provide()
        for _ in range(2):
            peer.send(bind("t-A", {"every": 5}))
            self.assertEqual(peer.next_of("triggerregistrationresult"), accepted("t-A"))
        peer.send(bind("t-A", {"every": 7}))  # changed: the old one stops, the new one starts
        self.assertEqual(peer.next_of("triggerregistrationresult"), accepted("t-A"))
        self.assertEqual([(c, t.config) for c, t in (handler.next() for _ in range(3))],
                         [("register", {"every": 5}), ("unregister", {"every": 5}), ("register", {"every": 7})])
        handler.assert_no_call()

    def test_unregistering_the_type_tells_the_engine_and_lets_go_of_its_triggers(self) -> None:
        _, peer, handler, ref = self.provide()
        peer.send(bind("t-A", {"every": 5}))
        peer.next_of("triggerregistrationresult")
        handler.next()
        ref.unregister()
        ref.unregister()  # once only
        self.assertEqual(peer.next_frame(), {"type": "unregistertriggertype", "id": "ticker", "description": "Ticks"})
        self.assertEqual(handler.next()[0:1], ("unregister",))
        peer.send(bind("t-B", {"every": 5}))
        self.assertEqual(peer.next_of("triggerregistrationresult")["error"]["code"], "trigger_type_not_found")
        peer.assert_quiet()

    def test_shutdown_unregisters_the_triggers_being_served(self) -> None:
        worker, peer, handler, _ = self.provide()
        peer.send(bind("t-A", {"every": 5}))
        peer.next_of("triggerregistrationresult")
        handler.next()
        worker.shutdown()
        self.assertEqual(handler.next()[0:1], ("unregister",))

    def test_mistakes_are_refused_clearly(self) -> None:
        engine = self.start_engine()
        worker = self.start_worker(engine.url)
        worker.register_trigger_type({"id": "ticker", "description": "Ticks"}, Recorder())
        cases: list[tuple[Any, Any, type[Exception], str]] = [
            ({"id": "ticker", "description": "again"}, Recorder(), ValueError,
             'Cannot register trigger type "ticker": already registered on this worker'),
            ({"id": "", "description": "x"}, Recorder(), ValueError,
             "Invalid trigger type \"id\" '': expected a non-empty string"),
            ("ticker", Recorder(), ValueError, 'Invalid trigger type: expected a dict {"id", "description"}, got str'),
            ({"id": "t2", "description": 3}, Recorder(), ValueError,
             'Invalid "description" of trigger type "t2": expected a string, got int'),
            ({"id": "t2"}, lambda t: None, TypeError,
             'Cannot register trigger type "t2": the handler has no callable "register_trigger" (got function)'),
            ({"id": "t2"}, {"register_trigger": print}, TypeError,
             'Cannot register trigger type "t2": the handler has no callable "unregister_trigger" (got dict)'),
        ]
        for spec, handler, error, message in cases:
            with self.subTest(spec=spec), self.assertRaises(error) as caught:
                worker.register_trigger_type(spec, handler)
            self.assertIn(message, str(caught.exception))
        worker.shutdown()
        with self.assertRaisesRegex(RuntimeError, 'Cannot register trigger type "t3": the worker is shut down'):
            worker.register_trigger_type({"id": "t3"}, Recorder())


if __name__ == "__main__":
    unittest.main()
