/**
 * Integers beyond 2^53 (64-bit ids, nanosecond counters) through `state::*`
 * from a worker on the wire: stored, read back and incremented digit for
 * digit, as the reference's 64-bit integers are, instead of rounded to the
 * nearest double (9007199254740993 read back as …992).
 */

import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { stateWorker } from "./mod.ts";
import { textWorker } from "../../tests/support/text_worker.ts";

for (const adapter of ["memory", "sqlite"] as const) {
  Deno.test(`[${adapter}] state keeps integers beyond 2^53 exact: set, get, list, update`, async () => {
    const dir = await Deno.makeTempDir();
    const config = adapter === "sqlite" ? { adapter, path: `${dir}/state.db` } : { adapter };
    const engine = await startEngine({
      port: 0,
      builtins: [{ worker: stateWorker, config: stateWorker.parseConfig(config) }],
    });
    const caller = await textWorker(engine.url);
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
