"""engine_sdk.websocket against Deno's WebSocket server, a second independent
implementation. ``python_test.ts`` starts that server and passes its URL in
``ENGINE_SDK_ECHO_URL``; run on their own, these tests are skipped."""

from __future__ import annotations

import json
import os
import unittest

import support  # noqa: F401 - puts the SDK on sys.path
from engine_sdk.websocket import ConnectionClosed, connect

ECHO_URL = os.environ.get("ENGINE_SDK_ECHO_URL")


@unittest.skipUnless(ECHO_URL, "ENGINE_SDK_ECHO_URL is not set (python_test.ts sets it)")
class DenoInteropTest(unittest.IsolatedAsyncioTestCase):
    async def test_messages_of_every_length_class_echo(self) -> None:
        assert ECHO_URL is not None
        ws = await connect(ECHO_URL, max_message_bytes=4 * 1024 * 1024)
        try:
            for size in [0, 125, 126, 65535, 65536, 1024 * 1024]:
                with self.subTest(size=size):
                    text = "ü" * (size // 2) + "z" * (size % 2)
                    ws.send_text(text)
                    self.assertEqual(await ws.recv(), text)
                    blob = bytes(i % 253 for i in range(size))
                    ws.send_bytes(blob)
                    self.assertEqual(await ws.recv(), blob)
        finally:
            await ws.close()
        self.assertEqual(ws.close_code, 1000)

    async def test_extra_headers_reach_the_server(self) -> None:
        assert ECHO_URL is not None
        ws = await connect(ECHO_URL, headers={"x-custom": "abc", "Authorization": "Bearer t"})
        ws.send_text("headers?")
        headers = json.loads(await ws.recv())
        self.assertEqual((headers["x-custom"], headers["authorization"]), ("abc", "Bearer t"))
        await ws.close()

    async def test_ping_is_answered_and_the_stream_continues(self) -> None:
        assert ECHO_URL is not None
        ws = await connect(ECHO_URL)
        before = ws.last_activity
        ws.ping(b"hb")
        ws.send_text("after-ping")
        self.assertEqual(await ws.recv(), "after-ping")
        self.assertGreater(ws.last_activity, before)
        await ws.close()

    async def test_server_close_code_reaches_the_client(self) -> None:
        assert ECHO_URL is not None
        ws = await connect(ECHO_URL)
        ws.send_text("close-me")
        with self.assertRaises(ConnectionClosed) as caught:
            await ws.recv()
        self.assertEqual((caught.exception.code, caught.exception.reason), (4000, "bye"))


if __name__ == "__main__":
    unittest.main()
