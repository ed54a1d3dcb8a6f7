import assert from "node:assert/strict";
import { watchConfigFile } from "./watch.ts";

/** A watcher on a fresh config file that counts its calls. */
async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "watch-test-" });
  const file = `${dir}/engine-config.yaml`;
  await Deno.writeTextFile(file, "workers: []\n");
  let calls = 0;
  const waiters: (() => void)[] = [];
  const watcher = watchConfigFile(file, () => {
    calls++;
    waiters.splice(0).forEach((w) => w());
  }, { debounceMs: 100 });
  const nextCall = () => new Promise<void>((resolve) => waiters.push(resolve));
  const cleanup = async () => {
    await watcher.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { dir, file, watcher, nextCall, calls: () => calls, cleanup };
}

Deno.test("watchConfigFile() calls once for a burst of writes", async () => {
  const s = await setup();
  try {
    const call = s.nextCall();
    for (let i = 0; i < 5; i++) await Deno.writeTextFile(s.file, `workers: []\n# ${i}\n`);
    await call;
    assert.equal(s.calls(), 1);
  } finally {
    await s.cleanup();
  }
});

Deno.test("watchConfigFile() sees a file renamed over the config (how editors save)", async () => {
  const s = await setup();
  try {
    const call = s.nextCall();
    await Deno.writeTextFile(`${s.dir}/.engine-config.yaml.swp`, "port: 1\n");
    await Deno.rename(`${s.dir}/.engine-config.yaml.swp`, s.file);
    await call;
    assert.equal(await Deno.readTextFile(s.file), "port: 1\n");
  } finally {
    await s.cleanup();
  }
});

Deno.test("watchConfigFile() ignores other files in the folder", async () => {
  const s = await setup();
  try {
    await Deno.writeTextFile(`${s.dir}/other.yaml`, "x: 1\n");
    // No event can prove a non-call: give a stray call time (3 debounce periods) to happen.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(s.calls(), 0);
    const call = s.nextCall();
    await Deno.writeTextFile(s.file, "workers: []\n# edited\n");
    await call;
    assert.equal(s.calls(), 1);
  } finally {
    await s.cleanup();
  }
});

Deno.test("watchConfigFile() stops calling once closed", async () => {
  const s = await setup();
  await s.watcher.close();
  await Deno.writeTextFile(s.file, "workers: []\n# after close\n");
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(s.calls(), 0);
  await s.cleanup();
});

Deno.test("watchConfigFile() of a symbolic link sees the file it points to change", async () => {
  const s = await setup();
  const elsewhere = await Deno.makeTempDir({ prefix: "watch-test-real-" });
  const link = `${s.dir}/linked.yaml`;
  const real = `${elsewhere}/real.yaml`;
  await Deno.writeTextFile(real, "workers: []\n");
  await Deno.symlink(real, link);
  let calls = 0;
  const called = Promise.withResolvers<void>();
  const watcher = watchConfigFile(link, () => {
    calls++;
    called.resolve();
  }, { debounceMs: 100 });
  try {
    // Written in place, in the folder of the file the link points to.
    await Deno.writeTextFile(real, "workers: []\n# edited\n");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no call within 5 s")), 5000);
    });
    try {
      await Promise.race([called.promise, late]);
    } finally {
      clearTimeout(timer);
    }
    assert.equal(calls, 1);
  } finally {
    await watcher.close();
    await Deno.remove(elsewhere, { recursive: true });
    await s.cleanup();
  }
});
