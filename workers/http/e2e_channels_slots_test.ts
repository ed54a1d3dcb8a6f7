/**
 * A streamed response holds its request's concurrency slot until its body
 * ends, so `concurrency_request_limit` bounds open streams too; every way a
 * body ends gives the slot back exactly once (`in_flight` reads 0 after each
 * case: a slot given back twice reads -1). On both transports; the slow
 * client on the native one, which can stop reading a writer's socket.
 */
import assert from "node:assert/strict";
import { open, route, stack, TRANSPORTS, until, within, type Writer } from "./_channels_e2e.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

for (const transport of TRANSPORTS) {
  Deno.test(`engine-http streams (${transport}): a stream holds its slot until its body ends`, async (t) => {
    const { engine, worker, base, slots } = await stack(transport, {
      concurrency_request_limit: 1,
    });
    const channels = engine.builtinApi("engine").channels!;
    const writers: Writer[] = [];
    const idle = () => slots().in_flight === 0 && slots().waiting === 0;
    try {
      await route(engine, worker, "/plain", () => ({ status_code: 200, body: "plain" }));
      // Writes its first chunk and leaves the rest to the test.
      await route(engine, worker, "/held", async (req) => {
        const writer = await open(engine, req.response);
        writers.push(writer);
        writer.socket.send(encode("first;"));
        return undefined;
      });
      /** A request to `/held` whose first chunk has come. */
      const held = async (init: RequestInit = {}) => {
        const body = (await fetch(`${base}/held`, init)).body!.getReader();
        assert.equal(decode((await body.read()).value), "first;");
        return { body, writer: writers.at(-1)! };
      };
      const readToEnd = async (body: ReadableStreamDefaultReader<Uint8Array>) => {
        while (!(await body.read()).done);
      };

      await t.step("a second request waits for the stream's end when the limit is 1", async () => {
        const { body, writer } = await held();
        assert.deepEqual(slots(), { in_flight: 1, waiting: 0 });
        const second = fetch(`${base}/plain`).then(async (r) => [r.status, await r.text()]);
        await until("the second request to wait for a slot", () => slots().waiting === 1);
        assert.equal(await within(second, 200), "pending", "the second request did not wait");
        writer.socket.send(encode("last;"));
        writer.socket.close(1000);
        assert.equal(decode((await body.read()).value), "last;");
        assert.equal((await body.read()).done, true);
        assert.deepEqual(await second, [200, '"plain"']);
        await until("the slots to be free", idle);
        assert.equal(channels.size, 0);
      });

      await t.step("a client that goes away mid-stream gives the slot back", async () => {
        const leaving = new AbortController();
        const { writer } = await held({ signal: leaving.signal });
        assert.equal(slots().in_flight, 1);
        leaving.abort();
        // The engine learns of it when it next writes to the client's connection.
        const sending = setInterval(() => {
          if (writer.socket.readyState === WebSocket.OPEN) writer.socket.send(encode("more;"));
        }, 20);
        try {
          const closed = await within(writer.closed, 10_000);
          assert.notEqual(closed, "pending", "the writer's socket was left open");
        } finally {
          clearInterval(sending);
        }
        await until("the slots to be free", idle);
        assert.equal(channels.size, 0);
        assert.equal((await fetch(`${base}/plain`)).status, 200, "the one slot is free again");
        assert.ok(idle());
      });

      await t.step("a client gone before the first chunk: the slot is given back", async () => {
        const opened = Promise.withResolvers<Writer>();
        await route(engine, worker, "/late", async (req) => {
          const writer = await open(engine, req.response);
          writers.push(writer);
          opened.resolve(writer);
          return undefined;
        });
        const leaving = new AbortController();
        const request = fetch(`${base}/late`, { signal: leaving.signal });
        const writer = await opened.promise;
        leaving.abort();
        await assert.rejects(request);
        // The first chunk commits a response for a client no longer there.
        const sending = setInterval(() => {
          if (writer.socket.readyState === WebSocket.OPEN) writer.socket.send(encode("late;"));
        }, 20);
        try {
          await until("the slots to be free", idle);
          const closed = await within(writer.closed, 10_000);
          assert.notEqual(closed, "pending", "the writer's socket was left open");
        } finally {
          clearInterval(sending);
        }
        assert.equal(channels.size, 0);
      });

      for (const status of [204, 304]) {
        await route(engine, worker, `/status-${status}`, async (req) => {
          const writer = await open(engine, req.response);
          writers.push(writer);
          writer.socket.send(JSON.stringify({ type: "set_status", status_code: status }));
          writer.socket.send(encode("a body that this status cannot have"));
          return undefined;
        });
        await t.step(`a streamed ${status} sends no body and closes the writer`, async () => {
          const response = await fetch(`${base}/status-${status}`);
          assert.equal(response.status, status);
          assert.equal(await response.text(), "");
          const closed = await within(writers.at(-1)!.closed, 10_000);
          assert.notEqual(closed, "pending", "the writer's socket was left open");
          await until("the slots to be free", idle);
          assert.equal(channels.size, 0);
        });
      }

      await t.step("a writer dropping mid-stream gives the slot back", async () => {
        const { body, writer } = await held();
        // A close code other than 1000 breaks the channel off: the body is cut short.
        writer.socket.close(4000, "gone");
        await assert.rejects(readToEnd(body));
        await until("the slots to be free", idle);
        assert.equal(channels.size, 0);
      });

      await t.step(
        "stopping engine-http cuts a stream in progress and gives its slot back",
        async () => {
          const { body, writer } = await held();
          assert.equal(slots().in_flight, 1);
          // Chunks keep coming, so no pause (default_timeout) cuts the stream meanwhile.
          const sending = setInterval(() => {
            if (writer.socket.readyState === WebSocket.OPEN) writer.socket.send(encode("more;"));
          }, 20);
          try {
            const stopped = engine.stopBuiltin("engine-http");
            await assert.rejects(readToEnd(body));
            await stopped;
          } finally {
            clearInterval(sending);
          }
          const cut = engine.logs.query({ level: "warn", text: "the HTTP worker is stopping" });
          assert.equal(cut.length, 1, "the stream was not cut by the stop");
          assert.deepEqual(slots(), { in_flight: 0, waiting: 0 });
          assert.equal(channels.size, 0);
        },
      );
    } finally {
      for (const w of writers) w.socket.close();
      await worker.close();
      await engine.stop();
    }
  });
}

/**
 * The writer's chunks; the most the engine may take from it while the client
 * reads nothing (its channel holds 64 frames, 4 MB here; TCP buffers hold
 * some more: about 13 MB in all when measured); and the most the writer
 * sends, which is beyond that bound.
 */
const CHUNK = 64 * 1024;
const TAKEN_BOUND = 48 * 1024 * 1024;
const SEND_CAP = 96 * 1024 * 1024;

Deno.test("engine-http streams (native): a slow client holds the writer back", async () => {
  const { engine, worker, base, slots } = await stack("native");
  const channels = engine.builtinApi("engine").channels!;
  const writers: Writer[] = [];
  try {
    await route(engine, worker, "/flood", async (req) => {
      const writer = await open(engine, req.response);
      writers.push(writer);
      writer.socket.send(encode("first;")); // commits the response: the headers go out
      return undefined;
    });
    const response = await fetch(`${base}/flood`);
    const { socket, closed } = writers[0]!;
    // The client reads nothing while the writer sends, keeping 1 MB in its own socket's
    // buffer, until that has not drained for a second: the engine stopped reading it.
    const chunk = new Uint8Array(CHUNK).fill(7);
    let sent = 0;
    for (let stuck = 0; stuck < 100 && sent < SEND_CAP;) {
      while (socket.bufferedAmount < 1024 * 1024 && sent < SEND_CAP) {
        socket.send(chunk);
        sent += CHUNK;
      }
      const before = socket.bufferedAmount;
      await new Promise((r) => setTimeout(r, 10));
      stuck = socket.bufferedAmount >= before ? stuck + 1 : 0;
    }
    assert.equal(socket.readyState, WebSocket.OPEN, "the writer was closed instead");
    // What the engine took: its channel's 64 frames, and what the sockets and Deno.serve hold.
    const taken = sent - socket.bufferedAmount;
    assert.ok(taken < TAKEN_BOUND, `the engine took ${taken} bytes the client did not read`);
    assert.equal(slots().in_flight, 1);
    // Now the client reads it all: nothing was lost, and the writer's end ends the body.
    const body = response.body!.getReader();
    let received = -"first;".length;
    while (received < sent) {
      const { value, done } = await body.read();
      assert.ok(!done, `the body ended after ${received} of ${sent} bytes`);
      received += value.byteLength;
    }
    socket.close(1000);
    assert.equal((await body.read()).done, true);
    assert.equal(received, sent);
    assert.notEqual(await within(closed, 10_000), "pending", "the writer's socket was left open");
    await until("the slot to be free", () => slots().in_flight === 0);
    assert.equal(channels.size, 0);
  } finally {
    for (const w of writers) w.socket.close();
    await worker.close();
    await engine.stop();
  }
});
