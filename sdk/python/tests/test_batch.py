"""The rules of ``engine.batch.v1`` (engine_sdk.batch): offers, line feeds, splitting, batching."""

from __future__ import annotations

import asyncio
import json
import unittest

import support  # noqa: F401 - puts the SDK on sys.path
from engine_sdk.batch import BATCH_BYTES, BATCH_PROTOCOL, FrameBatcher, line_safe, offers_protocol, split_batch


class BatchRulesTest(unittest.TestCase):
    def test_offers_protocol_matches_a_listed_name_exactly(self) -> None:
        cases: list[tuple[str | None, bool]] = [
            ("engine.batch.v1", True),
            ("chat, engine.batch.v1", True),
            ("chat,engine.batch.v1 ", True),
            ("ENGINE.BATCH.V1", False),
            ("engine.batch.v2", False),
            ("", False),
            (None, False),
        ]
        for header, offered in cases:
            with self.subTest(header=header):
                self.assertEqual(offers_protocol(header, BATCH_PROTOCOL), offered)
        self.assertEqual(BATCH_PROTOCOL, "engine.batch.v1")

    def test_line_safe_turns_json_whitespace_line_feeds_into_spaces_and_keeps_the_meaning(self) -> None:
        pretty = json.dumps({"a": [1, {"b": "x\ny"}], "c": None, "é": "ü"}, indent=2, ensure_ascii=False).encode()
        self.assertIn(b"\n", pretty)
        safe = line_safe(pretty)
        self.assertNotIn(b"\n", safe)
        self.assertEqual(json.loads(safe), json.loads(pretty))
        plain = b'{"a":1}'
        self.assertIs(line_safe(plain), plain)

    def test_split_batch_returns_the_frames_in_order_and_skips_blank_lines(self) -> None:
        cases: list[tuple[str | bytes, list[str | bytes]]] = [
            ('{"a":1}', ['{"a":1}']),
            ('{"a":1}\n{"b":2}\n', ['{"a":1}', '{"b":2}']),
            ('\n{"a":1}\n\n{"b":2}', ['{"a":1}', '{"b":2}']),
            ("", []),
            (b'{"a":1}\n{"b":"\xc3\xa9"}', [b'{"a":1}', b'{"b":"\xc3\xa9"}']),
            (b"", []),
            ('{"a":1}\r\n\r\n{"b":2}\r\n', ['{"a":1}\r', '{"b":2}\r']),
            ('{"a":1}\n  \t \n{"b":2}', ['{"a":1}', '{"b":2}']),
            (" \r\n\t", []),
            ("\r", []),
            (b"  ", []),
            ('\t{"a":1}\n', ['\t{"a":1}']),
            (b'{"a":1}\r\n \r\n', [b'{"a":1}\r']),
        ]
        for message, frames in cases:
            with self.subTest(message=message):
                self.assertEqual(split_batch(message), frames)


class FrameBatcherTest(unittest.IsolatedAsyncioTestCase):
    async def test_sends_the_frames_of_one_iteration_together_within_batch_bytes(self) -> None:
        sent: list[bytes] = []
        batcher = FrameBatcher(sent.append, asyncio.get_running_loop())
        batcher.push(b"a")
        batcher.push(b'{"x":\n1}')
        self.assertEqual(sent, [], "nothing before the iteration ends")
        self.assertEqual(batcher.pending_bytes, 1 + 8)
        await asyncio.sleep(0)
        self.assertEqual(sent, [b'a\n{"x": 1}'])
        self.assertEqual(batcher.pending_bytes, 0)

        # Frames up to the limit share a message; a large one travels alone.
        sent.clear()
        half = b"h" * (BATCH_BYTES // 2 - 1)
        big = b"b" * (BATCH_BYTES + 10)
        for data in (half, half, half, big, b"s1", b"s2"):
            batcher.push(data)
        await asyncio.sleep(0)
        shapes = [[chr(frame[0]) + str(len(frame)) for frame in message.split(b"\n")] for message in sent]
        h = f"h{len(half)}"
        self.assertEqual(shapes, [[h, h], [h], [f"b{len(big)}"], ["s2", "s2"]])
        for message in sent:
            self.assertTrue(len(message) <= BATCH_BYTES or b"\n" not in message, "over the limit only alone")

    async def test_the_limit_counts_utf8_bytes_and_line_feeds(self) -> None:
        e = "é".encode()  # two bytes, one character
        cases: list[tuple[str, list[bytes], list[int]]] = [
            # (case, frames pushed, frames per message sent)
            ("one frame of exactly the limit", [b"x" * BATCH_BYTES], [1]),
            ("one frame over the limit goes alone", [b"x" * (BATCH_BYTES + 1)], [1]),
            ("two filling the limit with their line feed", [b"x" * 100, b"y" * (BATCH_BYTES - 101)], [2]),
            ("two one byte over it", [b"x" * 100, b"y" * (BATCH_BYTES - 100)], [1, 1]),
            ("non-ASCII counted in bytes", [e * 100, e * ((BATCH_BYTES - 201) // 2) + b"z"], [2]),
            ("non-ASCII one byte over", [e * 100, e * ((BATCH_BYTES - 200) // 2)], [1, 1]),
            ("many small ones", [b"{}"] * 30000, [21845, 8155]),
        ]
        for case, pushed, shape in cases:
            with self.subTest(case):
                sent: list[bytes] = []
                batcher = FrameBatcher(sent.append, asyncio.get_running_loop())
                for frame in pushed:
                    batcher.push(frame)
                await asyncio.sleep(0)
                self.assertEqual([message.count(b"\n") + 1 for message in sent], shape)
                self.assertEqual(b"\n".join(sent), b"\n".join(pushed))
                for message in sent:
                    self.assertTrue(len(message) <= BATCH_BYTES or b"\n" not in message)

    async def test_a_single_frame_goes_out_as_it_is(self) -> None:
        sent: list[bytes] = []
        batcher = FrameBatcher(sent.append, asyncio.get_running_loop())
        frame = b'{"type":"ping"}'
        batcher.push(frame)
        await asyncio.sleep(0)
        self.assertEqual(len(sent), 1)
        self.assertIs(sent[0], frame)

    async def test_flush_sends_at_once_and_clear_drops_the_queue(self) -> None:
        sent: list[bytes] = []
        batcher = FrameBatcher(sent.append, asyncio.get_running_loop())
        batcher.push(b"a")
        batcher.flush()
        self.assertEqual(sent, [b"a"])
        batcher.push(b"b")
        batcher.clear()
        self.assertEqual(batcher.pending_bytes, 0)
        await asyncio.sleep(0)
        self.assertEqual(sent, [b"a"])
        batcher.push(b"c")  # the batcher still works after a clear
        await asyncio.sleep(0)
        self.assertEqual(sent, [b"a", b"c"])


if __name__ == "__main__":
    unittest.main()
