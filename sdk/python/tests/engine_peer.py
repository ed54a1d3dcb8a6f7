"""A scripted engine peer: a real WebSocket server on a free loopback port,
running in its own thread, that records what workers send and sends what a
test tells it to. Tests drive it with blocking calls and explicit waits."""

from __future__ import annotations

import asyncio
import json
import queue
import socket
import threading
import time
from typing import Any, Callable

import ws_server

WAIT = 5.0

BATCH_PROTOCOL = "engine.batch.v1"
"""Written out here rather than imported: the peer checks the SDK, it does not share its code."""


class PeerConnection:
    """One worker connection as the engine sees it."""

    def __init__(self, engine: ScriptedEngine, conn: ws_server.ServerConn, index: int) -> None:
        self._engine = engine
        self.conn = conn
        self.index = index
        self.headers = conn.request.headers
        self.path = conn.request.path
        self.worker_id = f"00000000-0000-4000-8000-{index:012d}"
        self.reattach_token = f"tok-{index}"
        self.frames: queue.Queue[dict[str, Any]] = queue.Queue()
        self.texts: list[bytes] = []
        """The undecoded bytes of every message received, in order (with ``batch``, a message may
        hold several frames separated by line feeds)."""
        self.batch = conn.protocol == BATCH_PROTOCOL
        """Whether this connection chose ``engine.batch.v1``."""
        self.closed = threading.Event()
        self.close_code: int | None = None
        self.ping_count = 0
        self.ping_seen = threading.Event()

    def on_ping(self, data: bytes) -> None:
        self.ping_count += 1
        self.ping_seen.set()

    def next_frame(self, timeout: float = WAIT) -> dict[str, Any]:
        """The next JSON frame this connection received; fails the test on time-out."""
        try:
            return self.frames.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"connection {self.index}: no frame within {timeout}s") from None

    def next_of(self, kind: str, function_id: str | None = None, timeout: float = WAIT) -> dict[str, Any]:
        """The next frame of type ``kind`` (and ``function_id``), skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"connection {self.index}: no {kind} {function_id or ''} within {timeout}s")
            frame = self.next_frame(left)
            if frame.get("type") == kind and (function_id is None or frame.get("function_id") == function_id):
                return frame

    def assert_quiet(self, seconds: float = 0.2) -> None:
        """Asserts nothing arrives for ``seconds`` (used only to prove an absence)."""
        try:
            frame = self.frames.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError(f"connection {self.index}: unexpected frame {frame}")

    def send(self, frame: dict[str, Any] | str) -> None:
        text = frame if isinstance(frame, str) else json.dumps(frame)
        self._engine.run(lambda: self.conn.send_text(text))

    def send_batch(self, frames: list[dict[str, Any]]) -> None:
        """Sends ``frames`` in one message, separated by line feeds (for a ``batch`` connection)."""
        text = "\n".join(json.dumps(frame) for frame in frames)
        self._engine.run(lambda: self.conn.send_text(text))

    def run(self, fn: Callable[[ws_server.ServerConn], Any]) -> None:
        """Runs ``fn(conn)`` on the peer's loop."""
        self._engine.run(lambda: fn(self.conn))

    def drop(self) -> None:
        """Drops the TCP connection without a close handshake."""
        self._engine.run(self.conn.abort)

    def wait_closed(self, timeout: float = WAIT) -> int | None:
        if not self.closed.wait(timeout):
            raise AssertionError(f"connection {self.index}: not closed within {timeout}s")
        return self.close_code


class ScriptedEngine:
    """Start with ``with ScriptedEngine() as engine:``; ``engine.url`` is its address."""

    def __init__(
        self,
        *,
        send_registered: bool = True,
        auto_pong: bool = True,
        refuse_status: int | None = None,
        listening: bool = True,
        batch: bool = False,
        protocol: str | None = None,
        json_pong: bool = True,
    ) -> None:
        """``batch``: choose ``engine.batch.v1`` when a worker offers it; ``protocol``: answer every
        upgrade with this subprotocol, offered or not; ``json_pong``: answer a JSON ``ping`` frame
        with a ``pong`` as the engine does (off: the test sends it, or none comes)."""
        self.send_registered = send_registered
        self.json_pong = json_pong
        self._listening = listening
        self.auto_pong = auto_pong
        self.refuse_status = refuse_status
        self._batch = batch
        self._protocol = protocol
        self.connections: list[PeerConnection] = []
        self.attempts = 0
        # Every accepted socket, with its StreamWriter once it has one.
        self._accepted: list[tuple[socket.socket, list[asyncio.StreamWriter]]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._new_connection = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.port = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def __enter__(self) -> ScriptedEngine:
        # A hand-written accept loop rather than asyncio's Server: every accepted
        # socket is tracked and closed at exit, even one accepted during the stop.
        self._listener.bind(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.port = self._listener.getsockname()[1]
        self._thread.start()
        if self._listening:
            self._listening = False
            self.listen()
        return self

    def listen(self) -> None:
        """Starts accepting connections. Until then (``listening=False``) the port is bound but
        refuses them, as an engine that is not running does."""
        if self._listening:
            return
        self._listening = True
        self._listener.listen(64)

        async def start() -> None:
            self._loop.add_reader(self._listener.fileno(), self._on_listener_readable)

        asyncio.run_coroutine_threadsafe(start(), self._loop).result(WAIT)

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            if self._listening:
                self._loop.remove_reader(self._listener.fileno())
            self._listener.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            for sock, writers in self._accepted:
                if writers:
                    writers[0].transport.abort()
                else:
                    sock.close()
            await asyncio.sleep(0)  # aborted transports release their sockets on the next turn

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(WAIT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(WAIT)
        self._loop.close()

    def run(self, fn: Callable[[], Any]) -> None:
        self._loop.call_soon_threadsafe(fn)

    def wait_connection(self, index: int = 1, timeout: float = WAIT) -> PeerConnection:
        """The ``index``-th connection (1-based), waiting for it to open."""
        with self._new_connection:
            if not self._new_connection.wait_for(lambda: len(self.connections) >= index, timeout):
                raise AssertionError(f"no connection #{index} within {timeout}s ({len(self.connections)} so far)")
            return self.connections[index - 1]

    def _on_listener_readable(self) -> None:
        while True:
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            sock.setblocking(False)
            writers: list[asyncio.StreamWriter] = []
            self._accepted.append((sock, writers))
            task = self._loop.create_task(self._handle(sock, writers))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _handle(self, sock: socket.socket, writers: list[asyncio.StreamWriter]) -> None:
        self.attempts += 1
        try:
            reader, writer = await asyncio.open_connection(sock=sock)
            writers.append(writer)
            conn = await ws_server.accept(reader, writer, refuse_status=self.refuse_status, choose=self._choose)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            return
        if conn is None:
            return
        conn.auto_pong = self.auto_pong
        with self._new_connection:
            peer = PeerConnection(self, conn, len(self.connections) + 1)
            conn.on_ping = peer.on_ping
            self.connections.append(peer)
            self._new_connection.notify_all()
        if self.send_registered:
            conn.send_text(
                json.dumps(
                    {"type": "workerregistered", "worker_id": peer.worker_id, "reattach_token": peer.reattach_token}
                )
            )
        await self._serve(peer)

    def _choose(self, offered: str | None) -> str | None:
        if self._protocol is not None:
            return self._protocol
        tokens = [token.strip() for token in (offered or "").split(",")]
        return BATCH_PROTOCOL if self._batch and BATCH_PROTOCOL in tokens else None

    async def _serve(self, peer: PeerConnection) -> None:
        conn = peer.conn
        try:
            while True:
                opcode, data = await conn.recv_message()
                if opcode == ws_server.CLOSE:
                    peer.close_code = int.from_bytes(data[:2], "big") if len(data) >= 2 else 1005
                    conn.send_close(peer.close_code if len(data) >= 2 else 1000)
                    conn.writer.close()
                    break
                peer.texts.append(data)
                for line in data.split(b"\n") if peer.batch else [data]:
                    if line:
                        frame = json.loads(line)
                        if self.json_pong and isinstance(frame, dict) and frame.get("type") == "ping":
                            conn.send_text('{"type":"pong"}')  # as the engine does (a shutdown waits for it)
                        peer.frames.put(frame)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            peer.close_code = 1006
        finally:
            peer.closed.set()
