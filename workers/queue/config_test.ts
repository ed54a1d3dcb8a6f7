import assert from "node:assert/strict";
import { ZodError } from "zod";
import {
  checkQueueName,
  defaultConfig,
  isConfigured,
  parseConfig,
  QUEUE_DEFAULTS,
  settingsOf,
} from "./config.ts";

Deno.test("parseConfig() fills every default from an empty block", () => {
  for (const raw of [undefined, null, {}]) {
    const config = parseConfig(raw);
    assert.equal(config.adapter, "sqlite");
    assert.equal(config.path, "./data/queue.db");
    assert.equal(config.max_payload_bytes, 1024 * 1024);
    assert.equal(config.auto_create_queues, true);
    assert.deepEqual(config.default_queue, QUEUE_DEFAULTS);
    assert.deepEqual(config.queues, {});
  }
});

Deno.test("parseConfig() accepts the reference configuration", () => {
  const config = parseConfig(defaultConfig);
  assert.deepEqual(settingsOf(config, "default"), QUEUE_DEFAULTS);
  assert.ok(isConfigured(config, "default"));
});

Deno.test("settingsOf() takes a queue's own fields over default_queue over the built-ins", () => {
  const config = parseConfig({
    default_queue: { concurrency: 2, backoff_ms: 50 },
    queues: { emails: { concurrency: 4 }, bare: null },
  });
  assert.deepEqual(settingsOf(config, "emails"), {
    ...QUEUE_DEFAULTS,
    concurrency: 4,
    backoff_ms: 50,
  });
  assert.deepEqual(settingsOf(config, "bare"), {
    ...QUEUE_DEFAULTS,
    concurrency: 2,
    backoff_ms: 50,
  });
  assert.deepEqual(settingsOf(config, "unknown"), settingsOf(config, "bare"));
  assert.equal(isConfigured(config, "bare"), true);
  assert.equal(isConfigured(config, "unknown"), false);
  assert.equal(isConfigured(config, "toString"), false);
});

Deno.test("parseConfig() refuses bad values with an issue naming the field", () => {
  const cases: [raw: unknown, path: string, text: RegExp][] = [
    [{ adapter: "postgres" }, "adapter", /sqlite/],
    [{ url: "http://x" }, "url", /redis:\/\//],
    [{ max_payload_bytes: 0 }, "max_payload_bytes", /0/],
    [{ auto_create_queues: "yes" }, "auto_create_queues", /boolean/],
    [{ queues: { jobs: { concurrency: 0 } } }, "queues.jobs.concurrency", /0/],
    [{ queues: { jobs: { max_attempts: 1.5 } } }, "queues.jobs.max_attempts", /int/],
    [{ queues: { jobs: { backoff_ms: -1 } } }, "queues.jobs.backoff_ms", /0/],
    [{ queues: { jobs: { retries: 3 } } }, "queues.jobs", /retries/],
    [{ queues: { "bad name": {} } }, "queues.bad name", /Invalid queue name "bad name"/],
    [{ default_queue: { visibility_timeout_ms: 0 } }, "default_queue.visibility_timeout_ms", /0/],
    [{ unknown: 1 }, "", /unknown/],
  ];
  for (const [raw, path, text] of cases) {
    assert.throws(() => parseConfig(raw), (error: unknown) => {
      assert.ok(error instanceof ZodError, JSON.stringify(raw));
      const issue = error.issues[0]!;
      assert.equal(issue.path.join("."), path, JSON.stringify(raw));
      assert.match(issue.message, text, JSON.stringify(raw));
      return true;
    });
  }
});

Deno.test("checkQueueName() accepts plain names and explains refusals", () => {
  for (const ok of ["jobs", "a", "emails.high", "tenant-1:jobs", "A_B", "x".repeat(128)]) {
    assert.equal(checkQueueName(ok), undefined, ok);
  }
  for (const bad of ["", "-jobs", "a b", "jobs/1", "x".repeat(129), "é"]) {
    assert.match(checkQueueName(bad) ?? "", /^Invalid queue name ".*": a queue name is/, bad);
  }
});
