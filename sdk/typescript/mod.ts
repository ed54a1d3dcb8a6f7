/**
 * TypeScript SDK for engine workers, for Deno 2 and Node >= 20, without
 * dependencies.
 *
 * A worker connects to the engine over WebSocket, registers functions under
 * `<namespace>::<name>` ids, binds them to triggers (such as HTTP routes), and
 * calls other functions with `trigger()`. It reconnects by itself when the
 * engine restarts and registers everything again.
 *
 * @example
 * ```ts
 * import { Logger, registerWorker } from "./mod.ts";
 *
 * const worker = registerWorker(undefined, { worker_name: "math" }); // $ENGINE_URL or ws://localhost:49134
 * const logger = new Logger();
 *
 * // An HTTP trigger's function gets the request and answers {status_code, headers?, body}.
 * worker.registerFunction("math::add", ({ body }: { body: { a: number; b: number } }) => {
 *   logger.info("Adding", body);
 *   return { status_code: 200, body: { sum: body.a + body.b } };
 * });
 * worker.registerTrigger({
 *   type: "http",
 *   function_id: "math::add",
 *   config: { api_path: "/math/add", http_method: "POST" },
 * });
 *
 * await worker.shutdown();
 * ```
 *
 * @module
 */

export { DEFAULT_ENGINE_URL, defaultWorker, registerWorker, Worker } from "./worker.ts";
export { validateFunctionId } from "./function_id.ts";
export { TriggerAction } from "./action.ts";
export { EngineError, type ErrorBody, isErrorBody } from "./errors.ts";
export { Logger, type LoggerOptions, type LogLevel } from "./logger.ts";
export { parseTraceparent, type TraceParent } from "./trace.ts";
export { DEFAULT_RECONNECT, reconnectDelay } from "./connection.ts";
export { SDK_VERSION } from "./env.ts";
export { ChannelReader, READER_HIGH_WATER } from "./channels/reader.ts";
export { ChannelWriter, CHUNK_SIZE } from "./channels/writer.ts";
export {
  type Channel,
  createChannel,
  type CreateChannelOptions,
  openChannel,
} from "./channels/create.ts";
export {
  type ChannelDirection,
  type ChannelOptions,
  type ChannelRef,
  channelUrl,
  isChannelRef,
} from "./channels/ref.ts";
export {
  type HttpRequest,
  HttpResponseStream,
  streamResponse,
  type StreamResponseInit,
} from "./channels/http_response.ts";
export type {
  FunctionHandler,
  FunctionOptions,
  FunctionRef,
  InvocationContext,
  ReconnectOptions,
  TriggerActionValue,
  TriggerConfig,
  TriggerInput,
  TriggerRef,
  TriggerRequest,
  TriggerTypeHandler,
  TriggerTypeRef,
  WorkerOptions,
} from "./types.ts";
