/**
 * The `config:` block of the `engine-queue` worker: its zod schema, the
 * per-queue delivery settings and the reference configuration
 * `worker add engine-queue` writes.
 *
 * @module
 */

import { z } from "zod";
import { storeConfigFields } from "../_shared/store_config.ts";

/** 1 MiB: the default `max_payload_bytes`. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

/** Letters, digits, `.`, `_`, `-` and `:`, starting with a letter or digit, at most 128 characters. */
const QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const QUEUE_NAME_RULE =
  "a queue name is 1 to 128 letters, digits, '.', '_', '-' and ':', starting with a letter or digit";

/** Returns `undefined` for a valid queue name, else why it is refused. */
export function checkQueueName(name: string): string | undefined {
  return QUEUE_NAME.test(name) ? undefined : `Invalid queue name "${name}": ${QUEUE_NAME_RULE}`;
}

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();

/** How one queue delivers its messages. */
export interface QueueSettings {
  /** Deliveries in flight at once, per engine. */
  concurrency: number;
  /** Deliveries of one message before it becomes a dead letter (the first included). */
  max_attempts: number;
  /** Delay before the first retry; doubles with each further failed attempt. */
  backoff_ms: number;
  /** Ceiling of the doubling delay. */
  max_backoff_ms: number;
  /** How long one delivery may run; a claimed message is redelivered when not acknowledged by then. */
  visibility_timeout_ms: number;
}

/** The built-in defaults of every queue setting. */
export const QUEUE_DEFAULTS: QueueSettings = {
  concurrency: 10,
  max_attempts: 5,
  backoff_ms: 1000,
  max_backoff_ms: 300_000,
  visibility_timeout_ms: 30_000,
};

const settingsShape = {
  concurrency: positiveInt.max(10_000),
  max_attempts: positiveInt.max(1000),
  backoff_ms: nonNegativeInt,
  max_backoff_ms: nonNegativeInt,
  visibility_timeout_ms: positiveInt.max(24 * 60 * 60 * 1000),
};

/** `default_queue`: every field optional, the built-in defaults filled in. */
const DefaultQueueSchema = z.strictObject({
  concurrency: settingsShape.concurrency.default(QUEUE_DEFAULTS.concurrency),
  max_attempts: settingsShape.max_attempts.default(QUEUE_DEFAULTS.max_attempts),
  backoff_ms: settingsShape.backoff_ms.default(QUEUE_DEFAULTS.backoff_ms),
  max_backoff_ms: settingsShape.max_backoff_ms.default(QUEUE_DEFAULTS.max_backoff_ms),
  visibility_timeout_ms: settingsShape.visibility_timeout_ms.default(
    QUEUE_DEFAULTS.visibility_timeout_ms,
  ),
});

/** One entry of `queues`: fields left out come from `default_queue`. */
const QueueEntrySchema = z.strictObject({
  concurrency: settingsShape.concurrency.optional(),
  max_attempts: settingsShape.max_attempts.optional(),
  backoff_ms: settingsShape.backoff_ms.optional(),
  max_backoff_ms: settingsShape.max_backoff_ms.optional(),
  visibility_timeout_ms: settingsShape.visibility_timeout_ms.optional(),
}).nullable();

/** The schema of the `engine-queue` config block; unknown keys are refused. */
export const QueueConfigSchema = z.strictObject({
  /** Where messages live: `adapter`, `path` (default `./data/queue.db`), `synchronous`, `url`. */
  ...storeConfigFields("./data/queue.db"),
  /** Largest payload one message may carry, in bytes of compact JSON. */
  max_payload_bytes: positiveInt.default(DEFAULT_MAX_PAYLOAD_BYTES),
  /** Whether a message for a queue missing from `queues` creates it with `default_queue`. */
  auto_create_queues: z.boolean().default(true),
  /** Settings of queues created on first use, and of fields a `queues` entry leaves out. */
  default_queue: DefaultQueueSchema.prefault({}),
  /** The named queues and their settings. */
  queues: z.record(z.string(), QueueEntrySchema).default({}).superRefine((queues, ctx) => {
    for (const name of Object.keys(queues)) {
      const problem = checkQueueName(name);
      if (problem !== undefined) ctx.addIssue({ code: "custom", path: [name], message: problem });
    }
  }),
});

/** The parsed config of the `engine-queue` worker. */
export type QueueConfig = z.infer<typeof QueueConfigSchema>;

/**
 * Validates a `config:` block; a missing block means every default.
 * Throws a `ZodError` whose issues name the field.
 */
export function parseConfig(raw: unknown): QueueConfig {
  return QueueConfigSchema.parse(raw ?? {});
}

/** Whether `queue` is named in the config's `queues`. */
export function isConfigured(config: QueueConfig, queue: string): boolean {
  return Object.hasOwn(config.queues, queue);
}

/** The settings `queue` delivers with: its entry over `default_queue`. */
export function settingsOf(config: QueueConfig, queue: string): QueueSettings {
  const own = isConfigured(config, queue) ? config.queues[queue] : undefined;
  const settings: QueueSettings = { ...config.default_queue };
  for (const [key, value] of Object.entries(own ?? {})) {
    if (value !== undefined) settings[key as keyof QueueSettings] = value;
  }
  return settings;
}

/** The reference configuration, written by `worker add engine-queue`. */
export const defaultConfig: Record<string, unknown> = {
  adapter: "sqlite",
  path: "./data/queue.db",
  queues: {
    default: {
      concurrency: QUEUE_DEFAULTS.concurrency,
      max_attempts: QUEUE_DEFAULTS.max_attempts,
      backoff_ms: QUEUE_DEFAULTS.backoff_ms,
      visibility_timeout_ms: QUEUE_DEFAULTS.visibility_timeout_ms,
    },
  },
};
