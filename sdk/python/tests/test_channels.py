"""Data channels: refs (pure), and ChannelReader / ChannelWriter / HttpStream
against the independent test server (tests/ws_server.py) on real sockets.

The same classes against a real engine: tests/e2e/python_channels_test.ts.
"""

from __future__ import annotations

import asyncio
import json
import struct
import unittest

import support  # noqa: F401 - puts the SDK on sys.path
import ws_server
from engine_sdk import ChannelError, ChannelReader, ChannelWriter, HttpStream, is_channel_ref
from engine_sdk.channel_end import refusal
from engine_sdk.channel_refs import channel_url, replace_channel_refs
from engine_sdk.websocket import HandshakeError
from test_websocket import ServerFixture

READ = {"channel_id": "c1", "access_key": "k1", "direction": "read"}
WRITE = {"channel_id": "c1", "access_key": "k1", "direction": "write"}


class RefTests(unittest.TestCase):
    def test_is_channel_ref(self) -> None:
        cases = [
            (READ, True),
            (WRITE, True),
            ({**READ, "extra": 1}, True),
            ({**READ, "direction": "both"}, False),
            ({"channel_id": "c1", "direction": "read"}, False),
            ({**READ, "access_key": 5}, False),
            ([READ], False),
            ("c1", False),
            (None, False),
        ]
        for value, expected in cases:
            with self.subTest(value=value):
                self.assertIs(is_channel_ref(value), expected)

    def test_replace_channel_refs_at_any_depth(self) -> None:
        data = {"a": [1, {"r": READ}], "w": WRITE, "n": None, "s": "x"}
        out = replace_channel_refs(data, lambda ref: f'{ref["direction"]}:{ref["channel_id"]}')
        self.assertEqual(out, {"a": [1, {"r": "read:c1"}], "w": "write:c1", "n": None, "s": "x"})
        self.assertEqual(data["w"], WRITE)  # the input is not changed

    def test_replace_channel_refs_keeps_data_without_refs(self) -> None:
        data = {"a": [1, {"b": "c"}], "ref-like": {"channel_id": "c1"}}
        self.assertIs(replace_channel_refs(data, lambda ref: self.fail("called")), data)
        # The replacement gets only the ref's three fields.
        seen = []
        replace_channel_refs({**READ, "extra": 1}, seen.append)
        self.assertEqual(seen, [READ])

    def test_channel_url(self) -> None:
        cases = [
            ("ws://h:1", READ, "ws://h:1/ws/channels/c1?key=k1&dir=read"),
            ("ws://h:1/", WRITE, "ws://h:1/ws/channels/c1?key=k1&dir=write"),
            ("wss://h/base?x=1", READ, "wss://h/base/ws/channels/c1?key=k1&dir=read"),
            ("ws://h", {**READ, "access_key": "a+b/c=&"}, "ws://h/ws/channels/c1?key=a%2Bb%2Fc%3D%26&dir=read"),
        ]
        for base, ref, expected in cases:
            with self.subTest(base=base):
                self.assertEqual(channel_url(base, ref), expected)

    def test_refusal_uses_the_engines_error_body(self) -> None:
        body = json.dumps({"error": {"code": "CHANNEL_CLAIMED", "message": "its read end is claimed already"}})
        err = refusal("c1", "read", HandshakeError("WebSocket upgrade failed: HTTP 409", 409, body.encode()))
        self.assertEqual(err.code, "CHANNEL_CLAIMED")
        expected = 'CHANNEL_CLAIMED: Cannot open the read end of channel "c1": HTTP 409: its read end is claimed already'
        self.assertEqual(str(err), expected)
        plain = refusal("c1", "write", HandshakeError("WebSocket upgrade failed: HTTP 502 Bad Gateway", 502, b"<html>"))
        self.assertEqual(plain.code, "channel_refused")
        self.assertIn("HTTP 502 Bad Gateway", plain.message)


class ChannelSocketTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.server = ServerFixture()
        self.base = (await self.server.start()).split("/path")[0]

    async def asyncTearDown(self) -> None:
        await self.server.close()

    async def test_writer_connects_lazily_splits_into_64k_frames_and_closes_with_1000(self) -> None:
        writer = ChannelWriter(self.base, WRITE)
        self.assertFalse(writer.opened)
        await writer.send_message("hi")
        conn = await self.server.conn()
        self.assertEqual(conn.request.path, "/ws/channels/c1?key=k1&dir=write")
        await writer.write(bytes(150_000))
        await writer.write(b"")  # nothing to send
        closing = asyncio.ensure_future(writer.close())
        frames = []
        while True:
            fin, opcode, data = await conn.recv_frame()
            frames.append((opcode, len(data)))
            if opcode == ws_server.CLOSE:
                self.assertEqual(struct.unpack("!H", data[:2])[0], 1000)
                self.assertEqual(data[2:], b"stream_complete")
                conn.send_close(1000)
                break
        await closing
        self.assertEqual(
            frames,
            [
                (ws_server.TEXT, 2),
                (ws_server.BINARY, 65536),
                (ws_server.BINARY, 65536),
                (ws_server.BINARY, 150_000 - 2 * 65536),
                (ws_server.CLOSE, 17),
            ],
        )
        with self.assertRaises(ChannelError) as caught:
            await writer.write(b"late")
        self.assertEqual(caught.exception.code, "channel_closed")

    async def test_writer_fails_once_the_engine_closed_it(self) -> None:
        writer = ChannelWriter(self.base, WRITE)
        await writer.open()
        conn = await self.server.conn()
        conn.send_close(1000, "reader closed")
        self.assertEqual((await conn.recv_message())[0], ws_server.CLOSE)  # the writer answered
        with self.assertRaises(ChannelError) as caught:
            for _ in range(100):  # the close is seen by the next write at the latest
                await writer.write(b"x")
                await asyncio.sleep(0.01)
        self.assertIn("the engine closed it (code 1000: reader closed)", str(caught.exception))

    async def test_writer_rejects_text_as_data(self) -> None:
        writer = ChannelWriter(self.base, WRITE)
        with self.assertRaisesRegex(TypeError, "encode text first"):
            await writer.write("text")  # type: ignore[arg-type]
        self.assertFalse(writer.opened)

    async def test_reader_gives_data_messages_to_callbacks_and_ends_on_close(self) -> None:
        reader = ChannelReader(self.base, READ)
        got: list[str] = []
        reader.on_message(got.append)
        reading = asyncio.ensure_future(reader.read_all())
        conn = await self.server.conn()
        self.assertEqual(conn.request.path, "/ws/channels/c1?key=k1&dir=read")
        conn.send_frame(ws_server.BINARY, b"ab")
        conn.send_text('{"k":1}')
        conn.send_frame(ws_server.BINARY, b"cd")
        conn.send_close(1000, "stream_complete")
        self.assertEqual(await reading, b"abcd")
        self.assertEqual(got, ['{"k":1}'])
        self.assertIsNone(await reader.read())  # ended: stays ended

    async def test_reader_raises_when_the_writer_broke_off(self) -> None:
        reader = ChannelReader(self.base, READ)
        chunks: list[bytes] = []

        async def consume() -> None:
            async for chunk in reader:
                chunks.append(chunk)

        task = asyncio.ensure_future(consume())
        conn = await self.server.conn()
        conn.send_frame(ws_server.BINARY, b"partial")
        conn.send_close(1011, "writer broke off")
        with self.assertRaises(ChannelError) as caught:
            await task
        self.assertEqual(caught.exception.code, "channel_broken")
        self.assertIn("(code 1011: writer broke off)", caught.exception.message)
        self.assertEqual(chunks, [b"partial"])
        with self.assertRaises(ChannelError):  # and again on the next read
            await reader.read()

    async def test_refused_upgrade_names_the_engines_reason(self) -> None:
        async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await ws_server.read_request(reader)
            body = b'{"error":{"code":"CHANNEL_NOT_FOUND","message":"Channel \\"c1\\" not found"}}'
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(refuse, "127.0.0.1", 0)
        try:
            port = server.sockets[0].getsockname()[1]
            with self.assertRaises(ChannelError) as caught:
                await ChannelReader(f"ws://127.0.0.1:{port}", READ).read_all()
            self.assertEqual(caught.exception.code, "CHANNEL_NOT_FOUND")
            self.assertIn('HTTP 404: Channel "c1" not found', caught.exception.message)
        finally:
            server.close()

    async def test_sync_forms_refuse_to_block_the_owner_loop(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "cannot block the worker's event loop"):
            ChannelReader(self.base, READ).read_all_sync()

    async def test_http_stream_sends_status_and_headers_before_the_first_chunk(self) -> None:
        writer = ChannelWriter(self.base, WRITE)
        with self.assertRaisesRegex(ValueError, "expected an integer from 200 to 599"):
            HttpStream(writer, status_code=99)
        with self.assertRaisesRegex(ValueError, 'Invalid HTTP header \'x\''):
            HttpStream({"response": writer}, headers={"x": 1})  # type: ignore[dict-item]
        with self.assertRaisesRegex(TypeError, "takes an HTTP handler's request"):
            HttpStream({"response": READ})
        out = HttpStream({"response": writer}, status_code=201, headers={"content-type": "text/plain"})
        writing = asyncio.ensure_future(out.write("héllo"))
        conn = await self.server.conn()
        await writing
        with self.assertRaisesRegex(RuntimeError, "went out with the first chunk"):
            out.set_status(500)
        ending = asyncio.ensure_future(out.end())
        messages = [await conn.recv_message() for _ in range(4)]
        conn.send_close(1000)
        await ending
        self.assertEqual(
            messages,
            [
                (ws_server.TEXT, b'{"type":"set_status","status_code":201}'),
                (ws_server.TEXT, b'{"type":"set_headers","headers":{"content-type":"text/plain"}}'),
                (ws_server.BINARY, "héllo".encode()),
                (ws_server.CLOSE, struct.pack("!H", 1000) + b"stream_complete"),
            ],
        )


if __name__ == "__main__":
    unittest.main()
