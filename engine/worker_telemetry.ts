/**
 * What `engine::workers::list` shows of the `telemetry` a worker sent with
 * `engine::workers::register` (the npm iii-sdk sends `{language,
 * project_name, framework, amplitude_api_key?}`): the three fields the
 * reference's `WorkerInfo` shows, strings only. The API key stays out of
 * every list, as anything a worker says there is shown to every worker.
 *
 * @module
 */

/** The fields of a worker's telemetry that are shown. */
export const SHOWN_TELEMETRY = ["language", "project_name", "framework"] as const;

export type TelemetryView = Partial<Record<(typeof SHOWN_TELEMETRY)[number], string>>;

/**
 * The shown part of `telemetry`, or `null` when the worker sent none (or
 * nothing of it is shown).
 *
 * @example
 * ```ts
 * import { telemetryView } from "./worker_telemetry.ts";
 * telemetryView({ language: "en-US", framework: "iii-node", amplitude_api_key: "k" });
 * // { language: "en-US", framework: "iii-node" }
 * telemetryView(undefined); // null
 * ```
 */
export function telemetryView(telemetry: unknown): TelemetryView | null {
  if (typeof telemetry !== "object" || telemetry === null || Array.isArray(telemetry)) return null;
  const view: TelemetryView = {};
  for (const key of SHOWN_TELEMETRY) {
    const value = (telemetry as Record<string, unknown>)[key];
    if (typeof value === "string") view[key] = value;
  }
  return Object.keys(view).length > 0 ? view : null;
}
