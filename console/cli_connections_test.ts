/**
 * The CLI's own connections (sdk "engine-cli": a command running, `engine
 * logs -f`) are tools, not workers: `/api/workers` leaves them out of its
 * list, as `engine worker list` does, and counts them. A real engine in this
 * process and real CLI connections (`EngineClient`) over WebSocket.
 */
import assert from "node:assert/strict";
import { EngineClient } from "../cli/engine_url.ts";
import { startHarness } from "./_testing.ts";

interface WorkersAnswer {
  workers: { name: string; sdk: string | null }[];
  cli_connections: number;
}

Deno.test("/api/workers leaves out the CLI's own connections and counts them", async () => {
  const h = await startHarness();
  const clients: EngineClient[] = [];
  try {
    for (const name of ["engine-cli", "engine-logs"]) {
      const client = await EngineClient.connect(h.engine.url, { name });
      clients.push(client);
      // Once a call answered, the engine has read its registration (frames are in order).
      await client.call("engine::health::check", {});
    }
    const listed = await h.link.call("engine::workers::list", {}) as WorkersAnswer;
    assert.equal(
      listed.workers.filter((w) => w.sdk === "engine-cli").length,
      2,
      "the engine lists both connections",
    );
    const answer = await (await h.app.request("/api/workers")).json() as WorkersAnswer;
    const names = answer.workers.map((w) => w.name);
    assert.ok(!names.includes("engine-cli") && !names.includes("engine-logs"), `${names}`);
    assert.ok(names.includes("probe"), `${names}`);
    assert.equal(answer.cli_connections, 2);

    await clients.pop()!.close();
    await clients.pop()!.close();
    // The engine drops a connection once it has seen it close: wait for that, not a time.
    const cliLeft = async () =>
      (await h.link.call("engine::workers::list", {}) as WorkersAnswer).workers
        .some((w) => w.sdk === "engine-cli");
    while (await cliLeft()) await h.link.call("engine::health::check", {});
    const after = await (await h.app.request("/api/workers")).json() as WorkersAnswer;
    assert.equal(after.cli_connections, 0);
  } finally {
    for (const c of clients) await c.close();
    await h.stop();
  }
});
