/**
 * The app behind a real `Deno.serve`, sent requests as raw bytes: what a
 * client puts on the wire that `app.request()` cannot (a `Request` built in
 * JavaScript has a parsed URL and well-formed headers).
 */
import assert from "node:assert/strict";
import { testApp } from "./_testing.ts";

/** The functions and triggers every case here uses: an echo of the request. */
function echoApp() {
  return testApp({
    functions: {
      echo: (payload) => {
        const { path, path_params, query_params, headers } = payload as Record<string, unknown>;
        return { status_code: 200, body: { path, path_params, query_params, headers } };
      },
    },
    triggers: [
      { function_id: "echo", config: { api_path: "/x" } },
      { function_id: "echo", config: { api_path: "/admin/:id" } },
    ],
  });
}

/** Serves `app` on a free port for the length of `body`. */
async function withServer(
  app: { fetch(request: Request): Response | Promise<Response> },
  body: (port: number) => Promise<void>,
): Promise<void> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.fetch(request),
  );
  try {
    await body(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

/** Sends `head` (lines joined with CRLF, then an empty line) and reads the reply until the server closes. */
async function exchange(
  port: number,
  head: string[],
): Promise<{ status: number; body: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    // A line with characters past U+00FF goes as UTF-8; any other, one byte per character, so a
    // line can hold bytes that are not UTF-8.
    const lines = [...head, "connection: close", "", ""].map((line, i, all) => {
      const text = i < all.length - 1 ? `${line}\r\n` : line;
      return /^[\0-\xff]*$/.test(text)
        ? Uint8Array.from(text, (c) => c.charCodeAt(0))
        : new TextEncoder().encode(text);
    });
    const bytes = new Uint8Array(await new Blob(lines).arrayBuffer());
    await conn.write(bytes);
    const reply = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
    const status = Number(reply.match(/^HTTP\/1\.[01] (\d{3})/)?.[1]);
    return { status, body: reply.slice(reply.indexOf("\r\n\r\n") + 4) };
  } finally {
    try {
      conn.close();
    } catch {
      // closed by reading to the end
    }
  }
}

Deno.test("app refuses a Host header that is not a host with 400, never routing by it", async () => {
  const { app, calls } = echoApp();
  await withServer(app, async (port) => {
    // Deno builds the request's URL as "http://" + Host + target: a "/" or "?" in
    // Host became part of the path (GET /x with Host "a/admin" reached /admin/x).
    const cases = [
      ["GET /x HTTP/1.1", "host: a/admin", "a/admin"],
      ["GET /x HTTP/1.1", "host: a/admin/7?q=1", "a/admin/7?q=1"],
      ["GET /x HTTP/1.1", "host: a b", "a b"],
      ["GET /x HTTP/1.1", "host: a\\b", "a\\b"],
      ["GET /x HTTP/1.1", "host: user@a", "user@a"],
      ["HEAD /x HTTP/1.1", "host: a/admin", "a/admin"],
    ] as const;
    for (const [line, host, value] of cases) {
      const reply = await exchange(port, [line, host]);
      assert.equal(reply.status, 400, host);
      if (line.startsWith("HEAD")) continue;
      assert.deepEqual(JSON.parse(reply.body), {
        error: {
          code: "INVALID_HOST",
          message: `Host header ${
            JSON.stringify(value)
          } is not a host name or address with an optional port`,
        },
      }, host);
    }
    assert.equal(calls.length, 0);
  });
});

Deno.test("app routes by the request target whatever valid Host it comes with", async () => {
  const { app } = echoApp();
  await withServer(app, async (port) => {
    const hosts = ["host: example.com", "host: 127.0.0.1:8080", "host: [::1]:80", "host: a_b-c.~"];
    for (const host of hosts) {
      const reply = await exchange(port, ["GET /x?q=1 HTTP/1.1", host]);
      assert.equal(reply.status, 200, host);
      const { headers: _, ...rest } = JSON.parse(reply.body);
      assert.deepEqual(rest, { path: "/x", path_params: {}, query_params: { q: "1" } }, host);
    }
    // HTTP/1.0 needs no Host; an absolute target names its own authority.
    const old = await exchange(port, ["GET /admin/7 HTTP/1.0"]);
    assert.deepEqual(JSON.parse(old.body).path_params, { id: "7" });
    const absolute = await exchange(port, ["GET http://other:81/admin/8 HTTP/1.1", "host: a"]);
    assert.deepEqual(JSON.parse(absolute.body).path_params, { id: "8" });
  });
});

Deno.test("app hands the handler header values sent as UTF-8 decoded, others as Latin-1", async () => {
  const { app } = echoApp();
  await withServer(app, async (port) => {
    const reply = await exchange(port, [
      "GET /x HTTP/1.1",
      "host: a",
      "x-name: Jürgen ✓", // sent as UTF-8
      "x-latin: caf\xe9", // one byte 0xE9: not UTF-8
      "x-plain: abc",
    ]);
    assert.equal(reply.status, 200);
    const { headers } = JSON.parse(reply.body);
    assert.equal(headers["x-name"], "Jürgen ✓");
    assert.equal(headers["x-latin"], "café");
    assert.equal(headers["x-plain"], "abc");
  });
});
