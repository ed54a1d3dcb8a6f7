"""OpenEnds: a worker's channel ends with an open socket, waited for at shutdown and then broken
off (close code 1001), against the independent test server (tests/ws_server.py).

With a real engine and a worker process: channels_shutdown_test.ts.
"""

from __future__ import annotations

import asyncio
import struct
import unittest

import support  # noqa: F401 - puts the SDK on sys.path
import ws_server
from engine_sdk import ChannelError, ChannelReader, ChannelWriter
from engine_sdk.open_ends import OpenEnds
from test_websocket import ServerFixture

READ = {"channel_id": "c1", "access_key": "k1", "direction": "read"}
WRITE = {"channel_id": "c2", "access_key": "k2", "direction": "write"}
WHY = "the worker shut down"


def close_code(data: bytes) -> int:
    return struct.unpack("!H", data[:2])[0]


class OpenEndsTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.server = ServerFixture()
        self.base = (await self.server.start()).split("/path")[0]
        self.ends = OpenEnds()

    async def asyncTearDown(self) -> None:
        await self.server.close()

    async def test_close_waits_for_an_end_that_closes_in_time(self) -> None:
        writer = ChannelWriter(self.base, WRITE, open_ends=self.ends)
        await writer.write(b"first half")
        conn = await self.server.conn()
        self.assertEqual(len(self.ends), 1)
        closing = asyncio.ensure_future(self.ends.close(30, WHY))
        await asyncio.sleep(0)
        self.assertFalse(closing.done())
        ending = asyncio.ensure_future(writer.close())
        self.assertEqual(await conn.recv_message(), (ws_server.BINARY, b"first half"))
        opcode, data = await conn.recv_message()
        self.assertEqual((opcode, close_code(data)), (ws_server.CLOSE, 1000))  # a clean end, not broken
        conn.send_close(1000)
        await ending
        await asyncio.wait_for(closing, 5)  # the end closed: no need to wait out the 30 s
        self.assertEqual(len(self.ends), 0)

    async def test_close_breaks_the_ends_still_open_with_1001(self) -> None:
        writer = ChannelWriter(self.base, WRITE, open_ends=self.ends)
        await writer.write(b"partial")
        writer_conn = await self.server.conn()
        reader = ChannelReader(self.base, READ, open_ends=self.ends)
        await reader.open()
        reader_conn = await self.server.conn()
        reading = asyncio.ensure_future(reader.read_all())
        reader_conn.send_frame(ws_server.BINARY, b"some")
        self.assertEqual(len(self.ends), 2)

        closing = asyncio.ensure_future(self.ends.close(0, WHY))
        for conn in (writer_conn, reader_conn):
            while (message := await conn.recv_message())[0] != ws_server.CLOSE:
                pass
            self.assertEqual(close_code(message[1]), 1001)
            conn.send_close(1001)
        await asyncio.wait_for(closing, 5)
        self.assertEqual(len(self.ends), 0)

        with self.assertRaises(ChannelError) as caught:
            await reading
        self.assertEqual(caught.exception.code, "channel_broken")
        self.assertEqual(caught.exception.message, f'Channel "c1" broke off: {WHY}')
        with self.assertRaises(ChannelError) as caught:
            await writer.write(b"more")
        self.assertEqual(str(caught.exception), f'channel_closed: Cannot write to channel "c2": {WHY}')

    async def test_an_end_opening_after_close_fails_at_once(self) -> None:
        await self.ends.close(0, WHY)
        cases = [
            (ChannelReader(self.base, READ, open_ends=self.ends), "read", "c1"),
            (ChannelWriter(self.base, WRITE, open_ends=self.ends), "write", "c2"),
        ]
        for end, direction, channel_id in cases:
            with self.subTest(direction=direction):
                with self.assertRaises(ChannelError) as caught:
                    await end.open()
                expected = f'shutdown: Cannot open the {direction} end of channel "{channel_id}": {WHY}'
                self.assertEqual(str(caught.exception), expected)
        self.assertTrue(self.server.accepted.empty(), "no socket was opened")

    async def test_ends_without_a_worker_are_not_tracked(self) -> None:
        writer = ChannelWriter(self.base, WRITE)
        await writer.open()
        await self.server.conn()
        self.assertEqual(len(self.ends), 0)
        await writer.abort()


if __name__ == "__main__":
    unittest.main()
