import assert from "node:assert/strict";
import { queueWorker } from "../workers/queue/mod.ts";
import { type Harness, startHarness } from "./_testing.ts";
import { eventually } from "../tests/support/local_worker.ts";

const post = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/** A harness with an in-memory engine-queue whose `mail` queue dead-letters on the first failure. */
async function withQueue(
  fn: (h: Harness, failing: { on: boolean; sent: number }) => Promise<void>,
) {
  const h = await startHarness();
  try {
    await h.engine.startBuiltin(
      queueWorker,
      queueWorker.parseConfig({ adapter: "memory", queues: { mail: { max_attempts: 1 } } }),
    );
    const failing = { on: true, sent: 0 };
    h.api.registerFunction("mail::send", () => {
      if (failing.on) throw new Error("SMTP refused");
      failing.sent++;
      return null;
    });
    await fn(h, failing);
  } finally {
    await h.stop();
  }
}

async function deadLetters(h: Harness, n: number): Promise<string[]> {
  for (let i = 0; i < n; i++) {
    await h.api.call("engine::queue::enqueue", {
      queue: "mail",
      function_id: "mail::send",
      data: { n: i },
    });
  }
  let ids: string[] = [];
  await eventually(async () => {
    const r = await h.api.call("engine::queue::dead_letters", { queue: "mail" }) as {
      dead_letters: { id: string }[];
    };
    ids = r.dead_letters.map((d) => d.id);
    return ids.length === n;
  }, `${n} dead letters in queue "mail"`);
  return ids;
}

Deno.test("console lists a queue's dead letters newest first, and refuses bad reads", async () => {
  await withQueue(async (h) => {
    const oldestFirst = await deadLetters(h, 5);
    const r = await (await h.app.request("/api/queues/mail/dead-letters?limit=3")).json();
    assert.equal(r.total, 5);
    assert.deepEqual(
      r.dead_letters.map((d: { id: string }) => d.id),
      oldestFirst.slice().reverse().slice(0, 3),
    );
    assert.equal(r.dead_letters[0].last_error.message, "SMTP refused");
    const rest = await (await h.app.request(
      `/api/queues/mail/dead-letters?limit=3&cursor=${encodeURIComponent(r.next_cursor)}`,
    )).json();
    assert.deepEqual(
      rest.dead_letters.map((d: { id: string }) => d.id),
      oldestFirst.slice(0, 2).reverse(),
    );
    assert.equal(rest.next_cursor, undefined);
    const cases: [string, number, string][] = [
      ["/api/queues/mail/dead-letters?limit=0", 400, "invalid_request"],
      ["/api/queues/mail/dead-letters?limit=x", 400, "invalid_request"],
      ["/api/queues/mail/dead-letters?limit=10001", 400, "invalid_request"],
      ["/api/queues/mail/dead-letters?cursor=nowhere", 400, "INVALID_ARGUMENT"],
      ["/api/queues/nope/dead-letters", 404, "QUEUE_NOT_FOUND"],
      ["/api/queues/bad%20name/dead-letters", 400, "INVALID_ARGUMENT"],
    ];
    for (const [path, status, code] of cases) {
      const res = await h.app.request(path);
      assert.equal(res.status, status, path);
      assert.equal((await res.json()).error.code, code, path);
    }
  });
});

Deno.test("console redrives and discards dead letters, one or all", async () => {
  await withQueue(async (h, failing) => {
    const ids = await deadLetters(h, 6);
    const bad: [string, unknown, number, string][] = [
      ["/api/queues/mail/redrive", {}, 400, "invalid_request"],
      ["/api/queues/mail/discard", { all: true }, 400, "invalid_request"],
      ["/api/queues/mail/discard", { id: "missing" }, 404, "NOT_FOUND"],
      ["/api/queues/mail/redrive", { id: "missing" }, 404, "NOT_FOUND"],
    ];
    for (const [path, body, status, code] of bad) {
      const res = await h.app.request(path, post(body));
      assert.equal(res.status, status, `${path} ${JSON.stringify(body)}`);
      assert.equal((await res.json()).error.code, code);
    }
    // A page of another site cannot act through the console.
    const csrf = await h.app.request(
      "http://127.0.0.1/api/queues/mail/discard",
      post({ id: ids[0] }, { origin: "http://evil.example" }),
    );
    assert.equal(csrf.status, 403);

    assert.deepEqual(
      await (await h.app.request("/api/queues/mail/discard", post({ id: ids[0] }))).json(),
      { queue: "mail", id: ids[0], discarded: true },
    );
    failing.on = false;
    assert.deepEqual(
      await (await h.app.request("/api/queues/mail/redrive", post({ id: ids[1] }))).json(),
      { queue: "mail", redriven: 1 },
    );
    await eventually(() => failing.sent === 1, "the redriven message sent");
    // Discard all keeps what failed after the operator's confirmation.
    const cutoff = Date.now();
    failing.on = true;
    while (Date.now() <= cutoff) await new Promise((r) => setTimeout(r, 0)); // a later ms
    await h.api.call("engine::queue::enqueue", { queue: "mail", function_id: "mail::send" });
    await eventually(async () => {
      const r = await h.api.call("engine::queue::dead_letters", { queue: "mail" }) as {
        total: number;
      };
      return r.total === 5;
    }, "the late failure is a dead letter");
    const all = await h.app.request(
      "/api/queues/mail/discard",
      post({ all: true, failed_before_ms: cutoff }),
    );
    assert.deepEqual(await all.json(), { queue: "mail", discarded: 4 });
    const left = await (await h.app.request("/api/queues/mail/dead-letters")).json();
    assert.equal(left.total, 1);
    assert.ok(!ids.includes(left.dead_letters[0].id));
    // Redrive all keeps what failed after the operator's confirmation too.
    const late = left.dead_letters[0].id;
    const cutoff2 = Date.now();
    while (Date.now() <= cutoff2) await new Promise((r) => setTimeout(r, 0)); // a later ms
    await h.api.call("engine::queue::enqueue", { queue: "mail", function_id: "mail::send" });
    let later = "";
    await eventually(async () => {
      const r = await h.api.call("engine::queue::dead_letters", { queue: "mail" }) as {
        dead_letters: { id: string }[];
      };
      later = r.dead_letters.find((d) => d.id !== late)?.id ?? "";
      return later !== "";
    }, "the second late failure is a dead letter");
    failing.on = false;
    assert.deepEqual(
      await (await h.app.request(
        "/api/queues/mail/redrive",
        post({ all: true, failed_before_ms: cutoff2 }),
      )).json(),
      { queue: "mail", redriven: 1 },
    );
    await eventually(() => failing.sent === 2, "the redriven message sent");
    const kept = await (await h.app.request("/api/queues/mail/dead-letters")).json();
    assert.deepEqual(kept.dead_letters.map((d: { id: string }) => d.id), [later]);
    assert.deepEqual(
      await (await h.app.request("/api/queues/mail/redrive", post({ all: true }))).json(),
      { queue: "mail", redriven: 1 },
    );
  });
});

Deno.test("console lists past the queue worker's 1,000 per call, newest first", async () => {
  await withQueue(async (h) => {
    const n = 1_010;
    for (let i = 0; i < n; i++) {
      await h.api.call("engine::queue::enqueue", {
        queue: "mail",
        function_id: "mail::send",
        data: { n: i },
      });
    }
    await eventually(async () => {
      const r = await h.api.call("engine::queue::dead_letters", { queue: "mail" }) as {
        total: number;
      };
      return r.total === n;
    }, `${n} dead letters in queue "mail"`);
    // The engine's own order, oldest first, read in its pages.
    const oldestFirst: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await h.api.call("engine::queue::dead_letters", {
        queue: "mail",
        limit: 1000,
        ...(cursor === undefined ? {} : { cursor }),
      }) as { dead_letters: { id: string }[]; next_cursor?: string };
      oldestFirst.push(...r.dead_letters.map((d) => d.id));
      cursor = r.next_cursor;
    } while (cursor !== undefined);
    assert.equal(oldestFirst.length, n);
    const all = await (await h.app.request(`/api/queues/mail/dead-letters?limit=${n + 5}`)).json();
    assert.equal(all.total, n);
    assert.equal(all.next_cursor, undefined);
    const ids = all.dead_letters.map((d: { id: string }) => d.id);
    assert.deepEqual(ids, oldestFirst.slice().reverse());
    const first = await (await h.app.request("/api/queues/mail/dead-letters?limit=1005")).json();
    assert.equal(first.dead_letters.length, 1005);
    const next = await (await h.app.request(
      `/api/queues/mail/dead-letters?limit=100&cursor=${encodeURIComponent(first.next_cursor)}`,
    )).json();
    assert.deepEqual(next.dead_letters.map((d: { id: string }) => d.id), ids.slice(1005));
  });
});
