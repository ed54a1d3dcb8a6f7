/**
 * ChannelReader, ChannelWriter and the streamed HTTP response against a
 * scripted `/ws/channels/...` endpoint (`Deno.serve`; the real engine is in
 * tests/e2e/sdk_channels_test.ts).
 */
import assert from "node:assert/strict";
import { ChannelReader } from "./reader.ts";
import { ChannelWriter, CHUNK_SIZE } from "./writer.ts";
import { streamResponse } from "./http_response.ts";
import { EngineError } from "../errors.ts";
import { OpenEnds, trackEnds } from "./open_ends.ts";

interface Opened {
  url: URL;
  socket: WebSocket;
  /** Frames received: strings for text, byte lengths for binary. */
  frames: (string | number)[];
  closed: Promise<CloseEvent>;
}

/** A channel endpoint: answers 404 for id "missing", else upgrades and records what it gets. */
function endpoint() {
  const opened: Opened[] = [];
  const waiters: (() => void)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname.endsWith("/missing")) {
      return Response.json({
        error: { code: "CHANNEL_NOT_FOUND", message: 'Channel "missing" not found' },
      }, {
        status: 404,
      });
    }
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    const frames: (string | number)[] = [];
    const closed = new Promise<CloseEvent>((resolve) => (socket.onclose = resolve));
    socket.onmessage = (e) => frames.push(typeof e.data === "string" ? e.data : e.data.byteLength);
    socket.onopen = () => {
      opened.push({ url, socket, frames, closed });
      waiters.splice(0).forEach((wake) => wake());
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/`,
    opened,
    async next(n: number): Promise<Opened> {
      while (opened.length <= n) await new Promise<void>((resolve) => waiters.push(resolve));
      return opened[n]!;
    },
    close: () => server.shutdown(),
  };
}

const ref = (direction: "read" | "write", channel_id = "c1") => ({
  channel_id,
  access_key: "key/1",
  direction,
});

Deno.test("ChannelWriter connects on first use, sends chunks of at most 64 KiB in order, ends with 1000", async () => {
  const server = endpoint();
  try {
    const writer = new ChannelWriter(server.url, ref("write"));
    assert.equal(server.opened.length, 0); // not connected by being made
    assert.equal(JSON.stringify(writer), "{}"); // the key does not leak into logs
    const sends = [
      writer.sendMessage("first"),
      writer.write(new Uint8Array(150_000)),
      writer.write("tail"),
    ];
    await Promise.all(sends);
    await writer.end();
    const end = await server.next(0);
    assert.equal(end.url.pathname, "/ws/channels/c1");
    assert.equal(end.url.search, "?key=key%2F1&dir=write");
    const event = await end.closed;
    assert.deepEqual(end.frames, ["first", CHUNK_SIZE, CHUNK_SIZE, 150_000 - 2 * CHUNK_SIZE, 4]);
    assert.equal(event.code, 1000);
    assert.equal(event.reason, "stream_complete");
    await assert.rejects(writer.write("late"), (err: unknown) => {
      assert.ok(err instanceof EngineError);
      assert.equal(err.code, "channel_closed");
      assert.match(err.message, /^Channel "c1": write\(\) after end\(\)\/close\(\)$/);
      return true;
    });
    await writer.end(); // a second end does nothing

    const closing = new ChannelWriter(server.url, ref("write", "c2"));
    await closing.close(); // never written: it opens to end, so the reader sees empty data
    const second = await server.next(1);
    assert.equal((await second.closed).reason, "channel_close");
    assert.deepEqual(second.frames, []);
  } finally {
    await server.close();
  }
});

Deno.test("ChannelWriter: a refused ref, and the engine closing the writer, reject every later call", async () => {
  const server = endpoint();
  try {
    const refused = new ChannelWriter(server.url, ref("write", "missing"));
    const unawaited = refused.write("x"); // must not crash the process when it fails
    await assert.rejects(refused.sendMessage("y"), (err: unknown) => {
      assert.ok(err instanceof EngineError);
      assert.equal(err.code, "channel_refused");
      assert.equal(
        err.message,
        'Channel "missing": the engine refused to open its writer (HTTP 404): Channel "missing" not found',
      );
      return true;
    });
    await assert.rejects(unawaited, /HTTP 404/);

    const writer = new ChannelWriter(server.url, ref("write"));
    await writer.write("a");
    const end = await server.next(0);
    end.socket.close(1000, "reader closed");
    await end.closed;
    await assert.rejects(
      async () => {
        for (;;) await writer.write("b"); // until the close is seen
      },
      /^EngineError: Channel "c1" cannot be written to: the engine closed the writer \(code 1000: reader closed\)$/,
    );
    await assert.rejects(writer.end(), /reader closed/);
  } finally {
    await server.close();
  }
});

Deno.test("ChannelReader connects on first read, gives chunks and messages, ends on 1000", async () => {
  const server = endpoint();
  try {
    const reader = new ChannelReader(server.url, ref("read"));
    const messages: string[] = [];
    reader.onMessage((text) => messages.push(text));
    assert.equal(server.opened.length, 0); // onMessage does not connect
    const all = reader.readAll();
    const end = await server.next(0);
    assert.equal(end.url.search, "?key=key%2F1&dir=read");
    end.socket.send(new Uint8Array([1, 2]));
    end.socket.send("hello");
    end.socket.send(new Uint8Array([3]));
    end.socket.close(1000, "stream_complete");
    assert.deepEqual(await all, new Uint8Array([1, 2, 3]));
    assert.deepEqual(messages, ["hello"]);
    await assert.rejects(reader.readAll(), /^Error: Channel "c1": its reader was read already$/);
  } finally {
    await server.close();
  }
});

Deno.test("ChannelReader: a writer that broke off, and a refused ref, fail the read", async () => {
  const server = endpoint();
  try {
    const reader = new ChannelReader(server.url, ref("read"));
    const chunks: number[] = [];
    const reading = (async () => {
      for await (const chunk of reader) chunks.push(chunk.byteLength);
    })();
    const end = await server.next(0);
    end.socket.send(new Uint8Array(10));
    end.socket.close(1011, "writer broke off");
    await assert.rejects(reading, (err: unknown) => {
      assert.ok(err instanceof EngineError);
      assert.equal(err.code, "channel_broken");
      assert.equal(
        err.message,
        'Channel "c1" broke off: the engine closed the reader (code 1011: writer broke off)',
      );
      return true;
    });
    assert.deepEqual(chunks, [10]); // what came before the break is read first

    const refused = new ChannelReader(server.url, ref("read", "missing"));
    await assert.rejects(refused.readText(), /refused to open its reader \(HTTP 404\)/);
  } finally {
    await server.close();
  }
});

Deno.test("ChannelReader: leaving the loop early closes the channel", async () => {
  const server = endpoint();
  try {
    const reader = new ChannelReader(server.url, ref("read"));
    const first = (async () => {
      for await (const chunk of reader) return chunk;
    })();
    const end = await server.next(0);
    end.socket.send(new Uint8Array([7]));
    end.socket.send(new Uint8Array([8]));
    assert.deepEqual(await first, new Uint8Array([7]));
    const event = await end.closed;
    assert.equal(event.code, 1000);
    assert.equal(event.reason, "channel_close");
  } finally {
    await server.close();
  }
});

Deno.test("streamResponse() sends set_status, set_headers, chunks, then the end", async () => {
  const server = endpoint();
  try {
    const writer = new ChannelWriter(server.url, ref("write"));
    const res = streamResponse(writer, {
      status_code: 201,
      headers: { "content-type": "text/plain" },
    });
    assert.throws(
      () => res.setStatus(99),
      /^RangeError: Invalid HTTP status 99: use an integer from 200 to 599$/,
    );
    assert.throws(
      () => res.setHeaders({ "x-n": 1 as unknown as string }),
      /Header "x-n" must be a string, got number/,
    );
    await res.setHeaders({ "x-more": "yes" });
    await res.write(""); // nothing
    assert.equal(res.headersSent, false);
    await res.write("abc");
    assert.equal(res.headersSent, true);
    assert.throws(() => res.setStatus(500), /^Error: setStatus\(\) after the first chunk/);
    await res.end(new Uint8Array(5));
    const end = await server.next(0);
    await end.closed;
    assert.deepEqual(end.frames, [
      '{"type":"set_status","status_code":201}',
      '{"type":"set_headers","headers":{"content-type":"text/plain"}}',
      '{"type":"set_headers","headers":{"x-more":"yes"}}',
      3,
      5,
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("ends of a worker that shut down fail at once and open no socket", async () => {
  const server = endpoint();
  const ends = new OpenEnds();
  const options = {};
  trackEnds(options, ends);
  try {
    const open = new ChannelWriter(server.url, ref("write"), options);
    await open.write("a");
    const opened = await server.next(0);
    await ends.close(0, "the worker shut down"); // breaks the open writer off at once
    assert.equal((await opened.closed).code, 1001);
    await assert.rejects(open.write("b"), {
      code: "channel_closed",
      message: 'Channel "c1" cannot be written to: the worker shut down',
    });

    const writer = new ChannelWriter(server.url, ref("write", "c2"), options);
    await assert.rejects(writer.write("x"), {
      code: "channel_closed",
      message: 'Channel "c2" cannot be written to: the worker shut down',
    });
    const reader = new ChannelReader(server.url, ref("read", "c3"), options);
    await assert.rejects(reader.readAll(), {
      code: "channel_broken",
      message: 'Channel "c3" broke off: the worker shut down',
    });
    assert.equal(server.opened.length, 1);
  } finally {
    await server.close();
  }
});
