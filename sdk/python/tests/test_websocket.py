"""engine_sdk.websocket against an independent server-side implementation."""

from __future__ import annotations

import asyncio
import socket
import struct
import unittest

import support  # noqa: F401 - puts the SDK on sys.path
import ws_server
from engine_sdk.websocket import ConnectionClosed, HandshakeError, WebSocket, connect

SIZES = [0, 125, 126, 65535, 65536, 1024 * 1024]


class ServerFixture:
    """A one-connection server on a free port; ``conn`` is its side of the socket."""

    def __init__(self, **accept_options: object) -> None:
        self.accepted: asyncio.Queue[ws_server.ServerConn | None] = asyncio.Queue()
        self.accept_options = accept_options
        self.writers: list[asyncio.StreamWriter] = []

    async def start(self) -> str:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.writers.append(writer)
            await self.accepted.put(await ws_server.accept(reader, writer, **self.accept_options))  # type: ignore[arg-type]

        self.server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}/path?x=1"

    async def conn(self) -> ws_server.ServerConn:
        conn = await asyncio.wait_for(self.accepted.get(), 5)
        assert conn is not None
        return conn

    async def close(self) -> None:
        self.server.close()
        for writer in self.writers:
            writer.transport.abort()
        await asyncio.sleep(0)  # let the transports release their sockets


class WebSocketClientTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        # The test server unmasks 1 MiB byte by byte; that is not a stalled loop.
        asyncio.get_running_loop().slow_callback_duration = 5.0

    async def open(self, **accept_options: object) -> tuple[WebSocket, ws_server.ServerConn]:
        fixture = ServerFixture(**accept_options)
        url = await fixture.start()
        self.addAsyncCleanup(fixture.close)
        ws = await connect(url, headers={"x-custom": "abc"}, max_message_bytes=2 * 1024 * 1024)
        self.addAsyncCleanup(self._abort, ws)
        return ws, await fixture.conn()

    async def _abort(self, ws: WebSocket) -> None:
        ws.abort()
        await asyncio.sleep(0)

    async def test_handshake_sends_path_host_and_extra_headers(self) -> None:
        ws, conn = await self.open()
        self.assertEqual(conn.request.path, "/path?x=1")
        self.assertEqual(conn.request.headers["x-custom"], "abc")
        self.assertRegex(conn.request.headers["host"], r"^127\.0\.0\.1:\d+$")
        self.assertNotIn("sec-websocket-protocol", conn.request.headers)
        self.assertTrue(ws.open)

    async def test_sets_tcp_nodelay(self) -> None:
        ws, _ = await self.open()
        sock = ws._writer.get_extra_info("socket")
        self.assertNotEqual(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY), 0)

    async def test_messages_of_every_length_class_cross_both_ways(self) -> None:
        ws, conn = await self.open()
        for size in SIZES:
            with self.subTest(size=size):
                text = "é" * (size // 2) + "a" * (size % 2)
                ws.send_text(text)
                opcode, data = await conn.recv_message()
                self.assertEqual((opcode, data.decode()), (ws_server.TEXT, text))
                blob = bytes(i % 251 for i in range(size))
                ws.send_bytes(blob)
                self.assertEqual(await conn.recv_message(), (ws_server.BINARY, blob))
                conn.send_frame(ws_server.BINARY, blob)
                self.assertEqual(await ws.recv(), blob)
                conn.send_text(text)
                self.assertEqual(await ws.recv(), text)
        self.assertEqual(conn.unmasked_frames, 0, "client frames must be masked")

    async def test_frame_header_and_payload_go_out_in_one_write(self) -> None:
        ws, conn = await self.open()
        writes: list[bytes] = []
        real_write = ws._writer.write
        ws._writer.write = lambda data: (writes.append(bytes(data)), real_write(data))[1]  # type: ignore[method-assign]
        ws.send_text("x" * 70000)
        self.assertEqual(len(writes), 1)
        self.assertEqual(writes[0][1] & 0x7F, 127)
        self.assertEqual(struct.unpack("!Q", writes[0][2:10])[0], 70000)
        self.assertEqual(len(writes[0]), 2 + 8 + 4 + 70000)
        self.assertEqual((await conn.recv_message())[1], b"x" * 70000)

    async def test_reassembles_fragments_and_answers_a_ping_in_between(self) -> None:
        ws, conn = await self.open()
        conn.send_frame(ws_server.TEXT, b"hel", fin=False)
        conn.send_frame(ws_server.PING, b"are-you-there")
        conn.send_frame(ws_server.CONT, b"lo ", fin=False)
        conn.send_frame(ws_server.CONT, b"world", fin=True)
        self.assertEqual(await ws.recv(), "hello world")
        fin, opcode, data = await conn.recv_frame()
        self.assertEqual((fin, opcode, data), (True, ws_server.PONG, b"are-you-there"))

    async def test_ping_gets_a_pong_that_counts_as_activity(self) -> None:
        ws, conn = await self.open()
        before = ws.last_activity
        ws.ping(b"hb")
        self.assertEqual(await conn.recv_frame(), (True, ws_server.PING, b"hb"))
        conn.send_frame(ws_server.PONG, b"hb")
        conn.send_text("after")
        self.assertEqual(await ws.recv(), "after")
        self.assertGreater(ws.last_activity, before)

    async def test_client_close_runs_the_handshake(self) -> None:
        ws, conn = await self.open()

        async def server_side() -> bytes:
            opcode, data = await conn.recv_message()
            self.assertEqual(opcode, ws_server.CLOSE)
            conn.send_close(1000)
            return data

        server = asyncio.create_task(server_side())
        await ws.close(1000, "bye")
        self.assertEqual(await server, struct.pack("!H", 1000) + b"bye")
        self.assertEqual(ws.close_code, 1000)
        self.assertFalse(ws.open)
        with self.assertRaises(ConnectionClosed):
            ws.send_text("late")

    async def test_server_close_is_echoed_and_ends_recv(self) -> None:
        ws, conn = await self.open()
        conn.send_close(4001, "go away")
        with self.assertRaises(ConnectionClosed) as caught:
            await ws.recv()
        self.assertEqual((caught.exception.code, caught.exception.reason), (4001, "go away"))
        opcode, data = await conn.recv_message()
        self.assertEqual((opcode, data[:2]), (ws_server.CLOSE, struct.pack("!H", 4001)))

    async def test_dropped_connection_ends_recv_with_1006(self) -> None:
        ws, conn = await self.open()
        conn.abort()
        with self.assertRaises(ConnectionClosed) as caught:
            await ws.recv()
        self.assertEqual(caught.exception.code, 1006)

    async def test_invalid_utf8_text_closes_with_1007(self) -> None:
        ws, conn = await self.open()
        conn.send_frame(ws_server.TEXT, b"\xff\xfe")
        with self.assertRaises(ConnectionClosed) as caught:
            await ws.recv()
        self.assertEqual(caught.exception.code, 1007)
        opcode, data = await conn.recv_message()
        self.assertEqual((opcode, data[:2]), (ws_server.CLOSE, struct.pack("!H", 1007)))

    async def test_oversized_message_closes_with_1009(self) -> None:
        ws, conn = await self.open()
        conn.send_frame(ws_server.BINARY, b"\0" * (2 * 1024 * 1024 + 1))
        with self.assertRaises(ConnectionClosed) as caught:
            await ws.recv()
        self.assertEqual(caught.exception.code, 1009)

    async def test_wrong_accept_key_is_refused(self) -> None:
        fixture = ServerFixture(bad_accept=True)
        url = await fixture.start()
        self.addAsyncCleanup(fixture.close)
        with self.assertRaisesRegex(HandshakeError, "wrong Sec-WebSocket-Accept"):
            await connect(url)

    async def test_http_refusal_reports_the_status(self) -> None:
        fixture = ServerFixture(refuse_status=401)
        url = await fixture.start()
        self.addAsyncCleanup(fixture.close)
        with self.assertRaises(HandshakeError) as caught:
            await connect(url)
        self.assertEqual(caught.exception.status, 401)
        self.assertIn("HTTP 401", str(caught.exception))

    async def test_offers_subprotocols_reports_the_choice_and_refuses_one_not_offered(self) -> None:
        offered: list[str | None] = []

        def choose(answer: str | None) -> object:
            def pick(header: str | None) -> str | None:
                offered.append(header)
                return answer

            return pick

        cases: list[tuple[tuple[str, ...], str | None, str | None]] = [
            # (offered, the server's answer, the protocol reported, or None for a handshake error)
            (("a", "b"), "b", "b"),
            (("a",), None, ""),
            (("a",), "c", None),
            ((), "c", None),
            ((), None, ""),
        ]
        for protocols, answer, reported in cases:
            with self.subTest(protocols=protocols, answer=answer):
                fixture = ServerFixture(choose=choose(answer))
                url = await fixture.start()
                self.addAsyncCleanup(fixture.close)
                if reported is None:
                    message = f'the server chose a subprotocol that was not offered: "{answer}"'
                    with self.assertRaisesRegex(HandshakeError, message):
                        await connect(url, protocols=protocols)
                else:
                    ws = await connect(url, protocols=protocols)
                    self.addAsyncCleanup(self._abort, ws)
                    self.assertEqual(ws.protocol, reported)
                self.assertEqual(offered.pop(), ", ".join(protocols) if protocols else None)

    async def test_refuses_a_bad_subprotocol_name_and_a_protocol_header(self) -> None:
        fixture = ServerFixture()
        url = await fixture.start()
        self.addAsyncCleanup(fixture.close)
        with self.assertRaisesRegex(ValueError, 'Invalid subprotocol name "a b": expected an HTTP token'):
            await connect(url, protocols=["a b"])
        with self.assertRaisesRegex(ValueError, 'Invalid header "Sec-WebSocket-Protocol": set by the WebSocket client'):
            await connect(url, headers={"Sec-WebSocket-Protocol": "a"})

    async def test_rejects_a_non_websocket_url(self) -> None:
        with self.assertRaisesRegex(ValueError, 'Invalid engine URL "http://x": expected a ws:// or wss:// URL'):
            await connect("http://x")


if __name__ == "__main__":
    unittest.main()
