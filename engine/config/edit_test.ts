import assert from "node:assert/strict";
import { addWorkerEntry, findWorkerEntry, removeWorkerEntry } from "./edit.ts";
import { parseConfig } from "./parse.ts";

/** A hand-written file with comments, blank lines, quoting and flow maps in odd places. */
const FIXTURE = `# Engine config: hand-edited.
host: "127.0.0.1"   # loopback only
port: 49134

workers:
  # The HTTP worker, with its reference settings.
  - name: engine-http
    config:
      port: 3111 # keep in sync with the proxy
      cors: { allowed_origins: [localhost], allowed_methods: [GET, POST] }

  - name: 'math'     # quoted on purpose
    path: ./workers/math
  # - name: disabled
  #   path: ./workers/disabled

# The console
console:
  port: 3113
`;

/** The lines of `after` that are not in `before`, asserting nothing else changed. */
function insertedLines(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  assert.equal(head + tail, a.length, `lines of the original changed:\n${after}`);
  return b.slice(head, b.length - tail);
}

function parsesTo(text: string): string[] {
  const result = parseConfig(text, { file: "test.yaml", env: () => undefined });
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.config.workers.map((worker) => worker.name);
}

Deno.test("addWorkerEntry() changes only the lines of the added entry", async (t) => {
  const cases: [string, Parameters<typeof addWorkerEntry>[1], string[]][] = [
    ["local worker", { name: "orders", path: "./workers/orders" }, [
      "  - name: orders",
      "    path: ./workers/orders",
    ]],
    ["built-in with a nested config", {
      name: "engine-queue",
      config: { adapter: { name: "sqlite", config: { path: "./data/queue.db" } } },
    }, [
      "  - name: engine-queue",
      "    config:",
      "      adapter:",
      "        name: sqlite",
      "        config:",
      "          path: ./data/queue.db",
    ]],
  ];
  for (const [name, entry, lines] of cases) {
    await t.step(name, () => {
      const result = addWorkerEntry(FIXTURE, entry);
      assert.ok(result.ok);
      assert.equal(result.replaced, false);
      assert.deepEqual(insertedLines(FIXTURE, result.text), lines);
      assert.deepEqual(parsesTo(result.text), ["engine-http", "math", entry.name]);
    });
  }
});

Deno.test("addWorkerEntry() handles every shape of workers", async (t) => {
  const entry = { name: "w", path: "./w" };
  const cases: [string, string, string][] = [
    ["empty file", "", "workers:\n  - name: w\n    path: ./w\n"],
    ["only comments", "# nothing yet", "# nothing yet\nworkers:\n  - name: w\n    path: ./w\n"],
    ["no workers key", "port: 1\n", "port: 1\nworkers:\n  - name: w\n    path: ./w\n"],
    ["no final newline", "port: 1", "port: 1\nworkers:\n  - name: w\n    path: ./w\n"],
    [
      "empty flow list",
      "workers: []\nport: 1\n",
      "workers:\n  - name: w\n    path: ./w\nport: 1\n",
    ],
    [
      "empty flow list with a comment",
      "workers: [] # none\n",
      "workers: # none\n  - name: w\n    path: ./w\n",
    ],
    ["empty flow list at the end", "workers: []", "workers:\n  - name: w\n    path: ./w\n"],
    ["bare key", "workers:\nport: 1\n", "workers:\n  - name: w\n    path: ./w\nport: 1\n"],
    ["null", "workers: ~\n", "workers:\n  - name: w\n    path: ./w\n"],
    [
      "flow list with entries",
      "workers: [{ name: a, path: ./a }]\n",
      "workers:\n  - name: a\n    path: ./a\n  - name: w\n    path: ./w\n",
    ],
    [
      "list at column 0",
      "workers:\n- name: a\n  path: ./a\nport: 1\n",
      "workers:\n- name: a\n  path: ./a\n- name: w\n  path: ./w\nport: 1\n",
    ],
    [
      "last entry without final newline",
      "workers:\n  - name: a\n    path: ./a",
      "workers:\n  - name: a\n    path: ./a\n  - name: w\n    path: ./w\n",
    ],
  ];
  for (const [name, before, after] of cases) {
    await t.step(name, () => {
      const result = addWorkerEntry(before, entry);
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.text, after);
      assert.ok(parsesTo(result.text).includes("w"));
    });
  }
});

Deno.test("addWorkerEntry() twice says the worker exists and changes nothing", () => {
  const first = addWorkerEntry(FIXTURE, { name: "orders", path: "./orders" });
  assert.ok(first.ok);
  const second = addWorkerEntry(first.text, { name: "orders", path: "./elsewhere" });
  assert.deepEqual(second, {
    ok: false,
    reason: "exists",
    index: 2,
    line: 14,
    entry: { name: "orders", path: "./orders" },
  });
  // A quoted name is found too.
  const quoted = addWorkerEntry(FIXTURE, { name: "math", path: "./m" });
  assert.ok(!quoted.ok && quoted.reason === "exists" && quoted.line === 12);
});

Deno.test("addWorkerEntry() with force replaces the entry in place", () => {
  const result = addWorkerEntry(FIXTURE, { name: "math", path: "./workers/math2" }, {
    force: true,
  });
  assert.ok(result.ok);
  assert.equal(result.replaced, true);
  const expected = FIXTURE.replace(
    "  - name: 'math'     # quoted on purpose\n    path: ./workers/math\n",
    "  - name: math\n    path: ./workers/math2\n",
  );
  assert.equal(result.text, expected);
  assert.deepEqual(parsesTo(result.text), ["engine-http", "math"]);
});

Deno.test("addWorkerEntry() refuses what it cannot edit", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    ["invalid YAML", "workers: [\n", "w", /invalid YAML at line 2/],
    ["workers not a list", "workers: 3\n", "w", /"workers" is not a list/],
    ["top level not a map", "- a\n", "w", /top level/],
    ["invalid name", "workers: []\n", "../w", /Invalid worker name "..\/w"/],
  ];
  for (const [name, text, worker, message] of cases) {
    await t.step(name, () => {
      const result = addWorkerEntry(text, { name: worker, path: "./w" });
      assert.ok(!result.ok && result.reason === "invalid");
      assert.match(result.message, message);
    });
  }
});

Deno.test("addWorkerEntry() and removeWorkerEntry() name the file they cannot edit", async (t) => {
  const file = "/project/engine-config.yaml";
  const cases: [string, string, string][] = [
    [
      "flow map at the top",
      "{workers: []}\n",
      "its top level is not a block of `key: value` lines",
    ],
    ["workers not a list", "workers: 3\n", '"workers" is not a list'],
    ["invalid YAML", "workers: [\n", "invalid YAML at line 2"],
  ];
  for (const [name, text, problem] of cases) {
    await t.step(name, () => {
      const added = addWorkerEntry(text, { name: "w", path: "./w" }, { file });
      assert.ok(!added.ok && added.reason === "invalid");
      assert.ok(added.message.startsWith(`Cannot edit "${file}": ${problem}`), added.message);
      const removed = removeWorkerEntry(text, "w", { file });
      assert.ok(!removed.ok && removed.reason === "invalid");
      assert.ok(removed.message.startsWith(`Cannot edit "${file}": ${problem}`), removed.message);
    });
  }
});

Deno.test("removeWorkerEntry() removes only the entry's lines", async (t) => {
  const cases: [string, string, string, string][] = [
    [
      "block entry",
      "workers:\n  - name: a\n    path: ./a # here\n  - name: b\n    path: ./b\nport: 1\n",
      "a",
      "workers:\n  - name: b\n    path: ./b\nport: 1\n",
    ],
    [
      "last entry leaves an empty list",
      "workers: # mine\n  - name: a\n    path: ./a\n# tail\nport: 1\n",
      "a",
      "workers: [] # mine\n# tail\nport: 1\n",
    ],
    [
      "flow list",
      "workers: [{ name: a, path: ./a }, { name: b, path: ./b }] # x\n",
      "a",
      "workers: [ { name: b, path: ./b } ] # x\n",
    ],
    ["flow list emptied", "workers: [{ name: a, path: ./a }]\n", "a", "workers: []\n"],
    [
      "duplicates all go",
      "workers:\n  - name: a\n    path: ./1\n  - name: a\n    path: ./2\n  - name: c\n    path: ./c\n",
      "a",
      "workers:\n  - name: c\n    path: ./c\n",
    ],
  ];
  for (const [name, before, worker, after] of cases) {
    await t.step(name, () => {
      const result = removeWorkerEntry(before, worker);
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.text, after);
      assert.ok(!parsesTo(result.text).includes(worker));
    });
  }
});

Deno.test("removeWorkerEntry() says when the worker is not there", async (t) => {
  for (const text of ["", "workers: []\n", "workers:\n  - name: a\n    path: ./a\n"]) {
    await t.step(JSON.stringify(text), () => {
      assert.deepEqual(removeWorkerEntry(text, "b"), {
        ok: false,
        reason: "missing",
        message: 'No worker "b" in the config file',
      });
    });
  }
});

Deno.test("removeWorkerEntry() undoes addWorkerEntry() byte for byte", async (t) => {
  for (
    const text of [
      FIXTURE,
      "workers:\n- name: a\n  path: ./a\n",
      "port: 1\nworkers:\n  - name: a\n    path: ./a",
    ]
  ) {
    await t.step(JSON.stringify(text.slice(0, 20)), () => {
      const added = addWorkerEntry(text, { name: "orders", config: { x: [1, { y: "z" }] } });
      assert.ok(added.ok);
      const removed = removeWorkerEntry(added.text, "orders");
      assert.ok(removed.ok);
      assert.equal(removed.text, text.endsWith("\n") ? text : `${text}\n`);
    });
  }
});

Deno.test("findWorkerEntry() finds an entry by name with its line", async (t) => {
  const cases: [string, ReturnType<typeof findWorkerEntry>][] = [
    ["engine-http", {
      index: 0,
      line: 7,
      entry: {
        name: "engine-http",
        config: {
          port: 3111,
          cors: { allowed_origins: ["localhost"], allowed_methods: ["GET", "POST"] },
        },
      },
    }],
    ["math", { index: 1, line: 12, entry: { name: "math", path: "./workers/math" } }],
    ["disabled", undefined],
  ];
  for (const [name, expected] of cases) {
    await t.step(name, () => assert.deepEqual(findWorkerEntry(FIXTURE, name), expected));
  }
  assert.equal(findWorkerEntry("workers: [\n", "a"), undefined);
});

Deno.test("addWorkerEntry() and removeWorkerEntry() keep a CRLF file's line endings", async (t) => {
  const entry = { name: "w", path: "./w" };
  const cases: [string, string][] = [
    ["block list", "# mine\r\nworkers:\r\n  - name: engine-state\r\nport: 1\r\n"],
    ["empty list", "workers: []\r\n"],
    ["no workers key", "port: 1\r\n"],
    ["no final line ending", "workers:\r\n  - name: engine-state"],
    ["flow list", "workers: [{name: engine-state}]\r\n"],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const added = addWorkerEntry(text, entry);
      assert.ok(added.ok);
      assert.doesNotMatch(
        added.text,
        /[^\r]\n/,
        `a bare line feed in:\n${JSON.stringify(added.text)}`,
      );
      assert.deepEqual(parsesTo(added.text).at(-1), "w");
      const removed = removeWorkerEntry(added.text, "w");
      assert.ok(removed.ok);
      assert.doesNotMatch(removed.text, /[^\r]\n/);
    });
  }
});

Deno.test("worker edits leave comments after the list to what follows it", async (t) => {
  // The last entry ends in an indented comment, which the YAML parser lets run on over the
  // column-0 comment and blank line that introduce the next key.
  const text = "workers:\n  - name: engine-state\n    config:\n      adapter: memory\n" +
    "      # kept in memory\n# The console, off here\n\nconsole: {enabled: false}\n";
  await t.step("add inserts after the list's own lines", () => {
    const result = addWorkerEntry(text, { name: "w", path: "./w" });
    assert.ok(result.ok);
    assert.equal(
      result.text,
      "workers:\n  - name: engine-state\n    config:\n      adapter: memory\n" +
        "      # kept in memory\n  - name: w\n    path: ./w\n# The console, off here\n\n" +
        "console: {enabled: false}\n",
    );
  });
  await t.step("remove keeps the next key's comment and blank line", () => {
    const result = removeWorkerEntry(text, "engine-state");
    assert.ok(result.ok);
    assert.equal(
      result.text,
      "workers: []\n# The console, off here\n\nconsole: {enabled: false}\n",
    );
  });
  await t.step("force replaces only the entry's lines", () => {
    const result = addWorkerEntry(text, { name: "engine-state", config: { adapter: "sqlite" } }, {
      force: true,
    });
    assert.ok(result.ok);
    assert.equal(
      result.text,
      "workers:\n  - name: engine-state\n    config:\n      adapter: sqlite\n" +
        "# The console, off here\n\nconsole: {enabled: false}\n",
    );
  });
  // Here the parser ends "a" in the indentation before the "-" of "b".
  const between = "workers:\n  - name: a\n    config:\n      x: 1\n      # of a\n# about b\n" +
    "  - name: b\n  - name: c\n";
  await t.step("removing the entry before a comment keeps the next entry", () => {
    const result = removeWorkerEntry(between, "a");
    assert.ok(result.ok);
    assert.equal(result.text, "workers:\n# about b\n  - name: b\n  - name: c\n");
  });
  await t.step("replacing the entry before a comment keeps the next entry", () => {
    const result = addWorkerEntry(between, { name: "a", path: "./a" }, { force: true });
    assert.ok(result.ok);
    assert.equal(
      result.text,
      "workers:\n  - name: a\n    path: ./a\n# about b\n  - name: b\n  - name: c\n",
    );
  });
});
