/**
 * Runs the Python SDK's unittest suite (`sdk/python/tests`) with `python3`.
 *
 * It also serves a Deno WebSocket echo server, a second RFC 6455
 * implementation that `tests/test_deno_interop.py` checks the Python client
 * against (its URL goes in `ENGINE_SDK_ECHO_URL`).
 *
 * @module
 */

const TESTS_DIR = decodeURIComponent(new URL("./tests", import.meta.url).pathname);

function serveEcho(signal: AbortSignal): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, signal, onListen() {} }, (req) => {
    const headers = JSON.stringify(Object.fromEntries(req.headers.entries()));
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => {
      if (event.data === "close-me") socket.close(4000, "bye");
      else if (event.data === "headers?") socket.send(headers);
      else socket.send(event.data);
    };
    return response;
  });
}

Deno.test("Python SDK: python3 -m unittest passes, including the Deno interop cases", async () => {
  const stop = new AbortController();
  const server = serveEcho(stop.signal);
  try {
    const { code, stdout, stderr } = await new Deno.Command("python3", {
      args: ["-m", "unittest", "discover", "-s", TESTS_DIR, "-v"],
      env: {
        ENGINE_SDK_ECHO_URL: `ws://127.0.0.1:${server.addr.port}`,
        PYTHONDONTWRITEBYTECODE: "1",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const report = new TextDecoder().decode(stderr);
    if (code !== 0) {
      console.log(new TextDecoder().decode(stdout));
      console.log(report);
      throw new Error(`python3 -m unittest exited with code ${code}: see the output above`);
    }
    // The interop cases must have run, not been skipped.
    const interop = report.match(/^test_\w+ \(test_deno_interop\.[\w.]+\) \.\.\. ok$/gm) ?? [];
    if (interop.length !== 4) {
      console.log(report);
      throw new Error(`Expected 4 passing Deno interop cases, found ${interop.length}`);
    }
  } finally {
    stop.abort();
    await server.finished;
  }
});
