/**
 * A worker on the published npm iii-sdk@0.22.1, unchanged, exposing the parts
 * of its public API that `iii_sdk_compat_test.ts` does not drive, for
 * `iii_sdk_surface_test.ts`: every `registerWorker` option the engine sees,
 * `registerFunction` options, `TriggerTypeRef.registerFunction` and
 * `registerTrigger`, the `http()` wrapper of `@iii-dev/helpers/http`, and
 * calls made while the engine is down. `WORKER_NAME` names it (several run
 * at once). Run with `--no-lock` (`@iii-dev/helpers` is iii-sdk's dependency).
 *
 * | Function           | Payload                                    | Answer |
 * | ------------------ | ------------------------------------------ | ------ |
 * | `<ns>::call`       | `{function_id, payload, timeoutMs?, background?}` | `{ok}` or `{error: {code, message}}`; `background`: `null`, and prints `outcome <json>` |
 * | `<ns>::echo`       | anything                                   | `{echoed}` |
 * | `<ns>::slow`       | `{ms}`                                     | `{slept}` after `ms` |
 * | `<ns>::note`       | anything                                   | prints `noted <json>` |
 * | `<ns>::provide`    | `{id}`                                     | `registerTriggerType(id)`; binds `<ns>::viaref` through the ref |
 * | `<ns>::bind_ref`   | `{function_id, config, metadata?}`         | `TriggerTypeRef.registerTrigger` |
 * | `<ns>::events`     | `{}`                                       | the provider's `{op, id, function_id, config, metadata}` calls |
 *
 * `<ns>` is `WORKER_NAME` with `-` as `_`. Also binds `GET /<name>/hello/:id`
 * to `<ns>::http`, written with `http()`. On SIGUSR1 it calls `<ns>::echo`
 * and, void, `<ns>::note`, printing `while-down <json>` when the call ends.
 * Prints "ready".
 */
import { registerWorker, TriggerAction } from "iii-sdk";
import type { TriggerTypeRef } from "iii-sdk/runtime";
import type { TriggerConfig } from "iii-sdk/trigger";
// Not in deno.json: a dependency of iii-sdk, imported as its users do (run with --no-lock).
// deno-lint-ignore no-import-prefix
import { http } from "npm:@iii-dev/helpers@0.22.1/http";

const name = Deno.env.get("WORKER_NAME") ?? "surface";
const ns = name.replaceAll("-", "_");
const worker = registerWorker(Deno.env.get("ENGINE_URL")!, {
  workerName: name,
  workerDescription: `Surface worker ${name}`,
  otel: { enabled: false },
  reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 300 },
  telemetry: {
    language: "xx-XX",
    project_name: "surface-project",
    framework: "surface-framework",
    amplitude_api_key: "not-for-listing",
  },
});

interface CallRequest {
  function_id: string;
  payload: unknown;
  timeoutMs?: number;
  /** Answer at once and print `outcome <json>` when the call ends. */
  background?: boolean;
}
async function callOf(req: CallRequest) {
  try {
    const result = await worker.trigger({
      function_id: req.function_id,
      payload: req.payload,
      ...(req.timeoutMs ? { timeoutMs: req.timeoutMs } : {}),
    });
    return { ok: result ?? null };
  } catch (e) {
    const err = e as { code?: string; message: string };
    return { error: { code: err.code ?? null, message: err.message } };
  }
}
worker.registerFunction(`${ns}::call`, (req: CallRequest) => {
  if (!req.background) return callOf(req);
  callOf(req).then((outcome) => console.log(`outcome ${JSON.stringify(outcome)}`));
  return Promise.resolve(null);
});

worker.registerFunction(`${ns}::echo`, (data: unknown) => Promise.resolve({ echoed: data }), {
  description: "Echoes its payload",
  request_format: { type: "object", properties: { text: { type: "string" } } },
  response_format: { type: "object", properties: { echoed: { type: "object" } } },
  metadata: { team: "surface" },
});
worker.registerFunction(
  `${ns}::slow`,
  (req: { ms: number }) =>
    new Promise((resolve) => setTimeout(() => resolve({ slept: req.ms }), req.ms)),
);
worker.registerFunction(`${ns}::note`, (data: unknown) => {
  console.log(`noted ${JSON.stringify(data)}`);
  return Promise.resolve(null);
});
worker.registerFunction(`${ns}::hidden`, () => Promise.resolve("hidden but callable"), {
  metadata: { internal: true },
});

const events: Record<string, unknown>[] = [];
const record = (op: string) => (c: TriggerConfig<unknown>) => {
  events.push({
    op,
    id: c.id,
    function_id: c.function_id,
    config: c.config ?? null,
    metadata: c.metadata ?? null,
  });
  return Promise.resolve();
};
let provided: TriggerTypeRef<unknown> | undefined;
worker.registerFunction(`${ns}::provide`, (req: { id: string }) => {
  provided = worker.registerTriggerType({ id: req.id, description: `provided by ${name}` }, {
    registerTrigger: record("register"),
    unregisterTrigger: record("unregister"),
  });
  provided.registerFunction(`${ns}::viaref`, () => Promise.resolve("viaref"), { every: 1 }, {
    from: "ref",
  });
  return Promise.resolve({ id: provided.id });
});
worker.registerFunction(
  `${ns}::bind_ref`,
  (req: { function_id: string; config: unknown; metadata?: Record<string, unknown> }) => {
    provided!.registerTrigger(req.function_id, req.config, req.metadata);
    return Promise.resolve(null);
  },
);
worker.registerFunction(`${ns}::events`, () => Promise.resolve({ events }));

interface HttpRequest {
  path_params: Record<string, string>;
}
interface HttpResponse {
  status(code: number): void;
  headers(headers: Record<string, string>): void;
  stream: { end(chunk: string): void };
  close(): void;
}
worker.registerFunction(
  `${ns}::http`,
  http((req: HttpRequest, res: HttpResponse) => {
    res.status(203);
    res.headers({ "content-type": "text/plain; charset=utf-8", "x-surface": name });
    res.stream.end(`hello ${req.path_params.id} from ${name}`);
    res.close();
    return Promise.resolve();
  }),
);
worker.registerTrigger({
  type: "http",
  function_id: `${ns}::http`,
  config: { api_path: `/${name}/hello/:id`, http_method: "GET" },
});

Deno.addSignalListener("SIGUSR1", () => {
  // Sent while the engine is down: the SDK queues both and sends them once it is back.
  worker.trigger({
    function_id: `${ns}::note`,
    payload: { void: true },
    action: TriggerAction.Void(),
  });
  worker.trigger({ function_id: `${ns}::echo`, payload: { queued: true }, timeoutMs: 20_000 }).then(
    (r: unknown) => console.log(`while-down ${JSON.stringify({ ok: r })}`),
    (e: unknown) => console.log(`while-down ${JSON.stringify({ error: String(e) })}`),
  );
});

await worker.trigger({ function_id: "engine::health::check", payload: {} });
console.log("ready");
