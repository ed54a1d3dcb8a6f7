"""Where a worker connects and what it sends on the upgrade: URL, token, headers, name."""

from __future__ import annotations

import os
import socket
import unittest
from typing import Any
from unittest import mock

import support
from engine_sdk import DEFAULT_ENGINE_URL, InitOptions, register_worker
from engine_sdk.options import resolve_url, to_options


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

    def test_url_and_token_no_connection_could_use_are_refused_at_once_naming_their_source(self) -> None:
        # As the TypeScript SDK words them; else every connection attempt fails on them, forever.
        bearer = "cannot be sent as a bearer token"
        newline = "it holds a line break or NUL (a trailing newline from a file?)"
        cases: list[tuple[str | None, dict[str, Any], dict[str, str], str]] = [
            (None, {}, {"ENGINE_URL": " "}, 'Invalid engine URL " " (from ENGINE_URL): expected a ws:// or wss:// URL'),
            (None, {}, {"ENGINE_URL": "localhost:49134"},
             'Invalid engine URL "localhost:49134" (from ENGINE_URL): expected a ws:// or wss:// URL'),
            ("http://x", {}, {}, 'Invalid engine URL "http://x": expected a ws:// or wss:// URL'),
            ("", {}, {}, 'Invalid engine URL "": expected a ws:// or wss:// URL'),
            ("ws://127.0.0.1:1", {}, {"ENGINE_TOKEN": "s3cret\n"}, f"ENGINE_TOKEN {bearer}: {newline}"),
            ("ws://127.0.0.1:1", {}, {"ENGINE_TOKEN": "jeton-é-€"},
             f"ENGINE_TOKEN {bearer}: HTTP headers hold Latin-1 text only"),
            ("ws://127.0.0.1:1", {"token": "a\r\nX-Evil: 1"}, {"ENGINE_TOKEN": "fine"}, f'Option "token" {bearer}: {newline}'),
            ("ws://127.0.0.1:1", {"token": "s3\x00cret"}, {}, f'Option "token" {bearer}: {newline}'),
            ("ws://127.0.0.1:1", {"token": "日本"}, {}, f'Option "token" {bearer}: HTTP headers hold Latin-1 text only'),
        ]
        for url, options, env, message in cases:
            with self.subTest(message=message, url=url, env=env), mock.patch.dict(os.environ, env):
                with self.assertRaises(ValueError) as caught:
                    register_worker(url, options)
                self.assertEqual(str(caught.exception), message)

    def test_headers_no_upgrade_can_carry_are_refused_at_once(self) -> None:
        cases = [
            ({"x-team": "日本"}, "Invalid header \"x-team\": HTTP headers hold Latin-1 text only"),
            ({"x-team": "a\r\nb"}, 'Invalid header "x-team": line breaks are not allowed'),
        ]
        for headers, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(ValueError) as caught:
                    register_worker("ws://127.0.0.1:1", {"headers": headers})
                self.assertEqual(str(caught.exception), message)

    def test_spaces_and_control_characters_around_the_url_are_trimmed(self) -> None:
        engine = self.start_engine()
        with mock.patch.dict(os.environ, {"ENGINE_URL": f"  {engine.url}\n"}):
            from_env = register_worker(options=support.FAST)
        self.addCleanup(from_env.shutdown)
        from_argument = self.start_worker(f"\t{engine.url} ")
        self.assertEqual((from_env.url, from_argument.url), (engine.url, engine.url))
        engine.wait_connection(2)
        with mock.patch.dict(os.environ, {"ENGINE_URL": ""}):
            self.assertEqual(resolve_url(None), DEFAULT_ENGINE_URL)  # empty means unset
        # Only what a WHATWG URL parser trims: U+0000 to U+0020.
        with self.assertRaisesRegex(ValueError, 'Invalid engine URL "ws://127.0.0.1:1\u00a0"'):
            register_worker("ws://127.0.0.1:1\u00a0")

    def test_an_explicit_authorization_header_wins_over_the_token(self) -> None:
        engine = self.start_engine()
        with mock.patch.dict(os.environ, {"ENGINE_TOKEN": "from-env"}):
            self.start_worker(engine.url, headers={"authorization": "Basic dXNlcjpwdw=="})
        self.start_worker(engine.url, token="from-option", headers={"Authorization": "Bearer explicit"})
        # The token is not sent, so a token it could not send does not stop the worker either.
        with mock.patch.dict(os.environ, {"ENGINE_TOKEN": "s3cret\n"}):
            self.start_worker(engine.url, headers={"AUTHORIZATION": "Bearer third"})
        sent = sorted(engine.wait_connection(i).headers["authorization"] for i in (1, 2, 3))
        self.assertEqual(sent, ["Basic dXNlcjpwdw==", "Bearer explicit", "Bearer third"])
    def test_numeric_options_that_are_not_numbers_are_refused_naming_the_option(self) -> None:
        # reconnect_backoff_multiplier was not checked at all: "2" or None was accepted, then the
        # first failed connection attempt raised TypeError in the background and the worker never
        # connected nor reconnected, silently. The others raised a TypeError naming nothing.
        cases = [
            ("reconnect_backoff_multiplier", "2", "a number of 1 or more"),
            ("reconnect_backoff_multiplier", None, "a number of 1 or more"),
            ("reconnect_backoff_multiplier", float("nan"), "a number of 1 or more"),
            ("reconnect_backoff_multiplier", 0.5, "a number of 1 or more"),
            ("reconnect_jitter", "0.3", "a fraction from 0 to 1"),
            ("reconnect_initial_delay_ms", "5", "0 or more"),
            ("reconnect_initial_delay_ms", float("nan"), "0 or more"),
            ("heartbeat_interval_ms", float("nan"), "a positive number"),
            ("max_handler_threads", 2.5, "a positive integer"),
            ("invocation_timeout_ms", 10**400, "a positive number"),  # raised OverflowError
        ]
        for name, value, expected in cases:
            with self.subTest(option=name, value=value):
                with self.assertRaisesRegex(
                    ValueError, f'^Invalid worker option "{name}": expected {expected}, got {value!r}$'
                ):
                    to_options({name: value})
        self.assertEqual(to_options({"reconnect_backoff_multiplier": 1}).reconnect_backoff_multiplier, 1)


if __name__ == "__main__":
    unittest.main()
