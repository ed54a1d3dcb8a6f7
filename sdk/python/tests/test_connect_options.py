"""Where a worker connects and what it sends on the upgrade: URL, token, headers, name."""

from __future__ import annotations

import os
import socket
import unittest
from unittest import mock

import support
from engine_sdk import DEFAULT_ENGINE_URL, InitOptions, register_worker
from engine_sdk.options import resolve_url


class ConnectOptionsTest(support.WorkerTestCase):
    def test_url_defaults_to_engine_url_from_the_environment(self) -> None:
        engine = self.start_engine()
        with mock.patch.dict(os.environ, {"ENGINE_URL": engine.url}):
            worker = register_worker(options=support.FAST)
        self.addCleanup(worker.shutdown)
        self.assertEqual(worker.url, engine.url)
        engine.wait_connection(1)

    def test_url_falls_back_to_localhost_49134(self) -> None:
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertEqual(resolve_url(None), "ws://localhost:49134")
            self.assertEqual(DEFAULT_ENGINE_URL, "ws://localhost:49134")
            self.assertEqual(resolve_url("ws://elsewhere:1"), "ws://elsewhere:1")

    def test_token_option_is_sent_as_a_bearer_header(self) -> None:
        engine = self.start_engine()
        self.start_worker(engine.url, token="s3cret", headers={"x-team": "blue"})
        peer = engine.wait_connection(1)
        self.assertEqual(peer.headers["authorization"], "Bearer s3cret")
        self.assertEqual(peer.headers["x-team"], "blue")

    def test_token_comes_from_engine_token_and_the_option_wins(self) -> None:
        engine = self.start_engine()
        with mock.patch.dict(os.environ, {"ENGINE_TOKEN": "from-env"}):
            self.start_worker(engine.url)
            self.start_worker(engine.url, token="from-option")
        tokens = {engine.wait_connection(i).headers["authorization"] for i in (1, 2)}
        self.assertEqual(tokens, {"Bearer from-env", "Bearer from-option"})

    def test_no_token_means_no_authorization_header(self) -> None:
        engine = self.start_engine()
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("ENGINE_TOKEN", None)
            self.start_worker(engine.url)
        self.assertNotIn("authorization", engine.wait_connection(1).headers)

    def test_worker_name_defaults(self) -> None:
        engine = self.start_engine()
        with mock.patch.dict(os.environ, {"ENGINE_WORKER_NAME": "from-env"}):
            named = register_worker(engine.url, InitOptions(reconnect_initial_delay_ms=20))
        self.addCleanup(named.shutdown)
        self.assertEqual(named.name, "from-env")
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("ENGINE_WORKER_NAME", None)
            anonymous = register_worker(engine.url, {"reconnect_initial_delay_ms": 20})
        self.addCleanup(anonymous.shutdown)
        self.assertEqual(anonymous.name, f"{socket.gethostname()}:{os.getpid()}")

    def test_invalid_url_is_refused_at_once(self) -> None:
        with self.assertRaisesRegex(ValueError, 'Invalid engine URL "http://x": expected a ws:// or wss:// URL'):
            register_worker("http://x")
        with mock.patch.dict(os.environ, {"ENGINE_URL": "localhost:49134"}):
            with self.assertRaisesRegex(ValueError, 'Invalid engine URL "localhost:49134"'):
                register_worker()

    def test_headers_no_upgrade_can_carry_are_refused_at_once(self) -> None:
        # Else every connection attempt fails on them, forever, with only a warning in the log.
        cases = [
            ({"headers": {"x-team": "日本"}}, {}, "Invalid header \"x-team\": HTTP headers hold Latin-1 text only"),
            ({"headers": {"x-team": "a\r\nb"}}, {}, 'Invalid header "x-team": line breaks are not allowed'),
            ({"token": "abc\n"}, {}, 'Invalid header "Authorization": line breaks are not allowed'),
            ({}, {"ENGINE_TOKEN": "jeton-é-€"}, "Invalid header \"Authorization\": HTTP headers hold Latin-1 text only"),
        ]
        for options, env, message in cases:
            with self.subTest(message=message), mock.patch.dict(os.environ, env):
                with self.assertRaises(ValueError) as caught:
                    register_worker("ws://127.0.0.1:1", options)
                self.assertIn(message, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
