import assert from "node:assert/strict";
import { acceptLoop, FIRST_RETRY_MS, MAX_RETRY_MS } from "./accept_loop.ts";

/**
 * A listener whose accepts follow a script: an error to throw, or a
 * connection. A real listener cannot be made to run out of file descriptors
 * on cue.
 */
function scripted(steps: ("emfile" | "conn" | "closed")[]) {
  const conn = {} as Deno.TcpConn;
  return {
    accept(): Promise<Deno.TcpConn> {
      const step = steps.shift() ?? "closed";
      if (step === "conn") return Promise.resolve(conn);
      if (step === "closed") return Promise.reject(new Deno.errors.BadResource("closed"));
      return Promise.reject(new Error("Too many open files (os error 24)"));
    },
  };
}

Deno.test("acceptLoop() waits longer after each failed accept in a row, and starts again after a success", async () => {
  const events: string[] = [];
  const listener = scripted([
    ...Array<"emfile">(10).fill("emfile"),
    "conn",
    "emfile",
    "emfile",
    "conn",
    "closed",
  ]);
  await acceptLoop(listener, {
    signal: new AbortController().signal,
    onConn: () => events.push("conn"),
    onError: (e, ms) => events.push(`error ${ms}: ${(e as Error).message}`),
    wait: (ms) => (events.push(`wait ${ms}`), Promise.resolve()),
  });
  const waits = events.filter((e) => e.startsWith("wait")).map((e) => Number(e.slice(5)));
  assert.deepEqual(waits, [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000, 5, 10]);
  assert.equal(waits[0], FIRST_RETRY_MS);
  assert.equal(Math.max(...waits), MAX_RETRY_MS);
  assert.equal(events[0], "error 5: Too many open files (os error 24)");
  assert.equal(events.filter((e) => e === "conn").length, 2);
});

Deno.test("acceptLoop() ends when its signal aborts, during a wait too", async () => {
  const stop = new AbortController();
  const listener = scripted(Array<"emfile">(100).fill("emfile"));
  let waits = 0;
  await acceptLoop(listener, {
    signal: stop.signal,
    onConn: () => assert.fail("no connection"),
    onError: () => {
      if (++waits === 3) stop.abort();
    },
  });
  assert.equal(waits, 3);
});
