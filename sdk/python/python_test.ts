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
    // The interop cases must have run, not been skipped. A case's verdict may come lines after its
    // name: asyncio's debug mode reports slow callbacks on stderr in between (a loaded machine).
    const interop = interopVerdicts(report).filter((v) => v === "ok");
    if (interop.length !== 4) {
      console.log(report);
      throw new Error(`Expected 4 passing Deno interop cases, found ${interop.length}`);
    }
  } finally {
    stop.abort();
    await server.finished;
  }
});

/** The verdict (`ok`, `skipped …`, `FAIL`, …) of each `test_deno_interop` case in a unittest -v report. */
function interopVerdicts(report: string): string[] {
  const start = /^test_\w+ \(test_deno_interop\.[\w.]+\) \.\.\. /;
  const verdict = /(?:^|\.\.\. )(ok|skipped.*|FAIL|ERROR|expected failure)$/;
  const lines = report.split("\n");
  const verdicts: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!start.test(lines[i]!)) continue;
    // The verdict ends the case's line, or a later line before the next case (asyncio's debug
    // mode may report a slow callback in between).
    let found = "unknown";
    for (let j = i; j < lines.length && (j === i || !/^test_\w+ \(/.test(lines[j]!)); j++) {
      const m = verdict.exec(lines[j]!.trimEnd());
      if (m) {
        found = m[1]!;
        break;
      }
    }
    verdicts.push(found);
  }
  return verdicts;
}
