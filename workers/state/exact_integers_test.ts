/**
 * Integers beyond 2^53 (64-bit ids, nanosecond counters) through `state::*`
 * from a worker on the wire: stored, read back and incremented digit for
 * digit, as the reference's 64-bit integers are, instead of rounded to the
 * nearest double (9007199254740993 read back as …992).
 */

import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { stateWorker } from "./mod.ts";

/** A bare WebSocket caller that keeps the text of every result frame. */
async function textCaller(url: string) {
  const socket = new WebSocket(url);
  const waiting = new Map<string, (text: string) => void>();
  socket.onmessage = (e) => {
    const text = String(e.data);
    const id = /"invocation_id":"([^"]+)"/.exec(text)?.[1];
    if (id !== undefined) waiting.get(id)?.(text);
  };
  await new Promise((resolve) => socket.onopen = resolve);
  let n = 0;
  return {
    /** The raw `invocationresult` text for a call whose `data` is the JSON text `dataText`. */
    call(functionId: string, dataText: string): Promise<string> {
      const id = `c${n++}`;
      const answered = new Promise<string>((resolve) => waiting.set(id, resolve));
      socket.send(
        `{"type":"invokefunction","invocation_id":"${id}","function_id":"${functionId}","data":${dataText}}`,
      );
      return answered;
    },
    async close() {
      const closed = new Promise((resolve) => socket.onclose = resolve);
      socket.close();
      await closed;
    },
  };
}

for (const adapter of ["memory", "sqlite"] as const) {
  Deno.test(`[${adapter}] state keeps integers beyond 2^53 exact: set, get, list, update`, async () => {
    const dir = await Deno.makeTempDir();
    const config = adapter === "sqlite" ? { adapter, path: `${dir}/state.db` } : { adapter };
    const engine = await startEngine({
      port: 0,
      builtins: [{ worker: stateWorker, config: stateWorker.parseConfig(config) }],
    });
    const caller = await textCaller(engine.url);
    try {
      const value = '{"id":12345678901234567890,"ns":9007199254740993,"small":7,"f":1.5}';
      const set = await caller.call(
        "state::set",
        `{"scope":"ids","key":"a","value":${value}}`,
      );
      assert.doesNotMatch(set, /"error"/, set);
      const got = await caller.call("state::get", '{"scope":"ids","key":"a"}');
      assert.match(got, new RegExp(`"result":${value.replace(/[.]/g, "\\.")}`), got);
      const listed = await caller.call("state::list", '{"scope":"ids"}');
      assert.match(listed, /12345678901234567890/);
      assert.match(listed, /9007199254740993/);

      // Whole steps stay exact past 2^53; so does a sum of small integers that passes it.
      const updated = await caller.call(
        "state::update",
        `{"scope":"ids","key":"a","ops":[{"type":"increment","path":"id","by":1},{"type":"increment","path":"ns","by":2},{"type":"decrement","path":"small","by":3}]}`,
      );
      assert.match(updated, /"id":12345678901234567891/, updated);
      assert.match(updated, /"ns":9007199254740995/, updated);
      const counter = await caller.call(
        "state::update",
        '{"scope":"ids","key":"n","ops":[{"type":"set","path":"","value":9007199254740991},{"type":"increment","path":"","by":2}]}',
      );
      assert.match(counter, /9007199254740993/, counter);
      const half = await caller.call(
        "state::update",
        '{"scope":"ids","key":"a","ops":[{"type":"increment","path":"id","by":0.5}]}',
      );
      assert.match(half, /increment\.not_exact|beyond 2\^53/, half);
      const again = await caller.call("state::get", '{"scope":"ids","key":"a"}');
      assert.match(again, /"id":12345678901234567891/, again);
    } finally {
      await caller.close();
      await engine.stop();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
