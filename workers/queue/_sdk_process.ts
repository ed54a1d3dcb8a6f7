/**
 * Test support of the queue worker's end-to-end tests: a worker process on
 * the TypeScript SDK (`tests/fixtures/queue/sdk_worker.ts`), a producer, or
 * with `consumer` the `queue-e2e::*` functions, driven through JSON lines.
 *
 * @module
 */

import { JsonLineProcess } from "../../tests/support/json_line_process.ts";
import { describePredicate } from "../../tests/support/waiters.ts";

export type Message = Record<string, unknown>;

const FIXTURE = new URL("../../tests/fixtures/queue/sdk_worker.ts", import.meta.url);

/** A worker process on the TS SDK: a producer, or with `consumer` the `queue-e2e::*` functions. */
export class SdkProcess {
  readonly process: JsonLineProcess;
  #next = 0;

  private constructor(process: JsonLineProcess) {
    this.process = process;
  }

  static async start(url: string, consumer = false): Promise<SdkProcess> {
    const process = new JsonLineProcess(FIXTURE, [url, ...(consumer ? ["--consumer"] : [])]);
    await process.waitFor((m) => m.ready === true, {
      description: `the "ready" message of the ${consumer ? "consumer" : "producer"} fixture`,
    });
    return new SdkProcess(process);
  }

  /** Runs a command; resolves with `{result}` or `{error}`. */
  async send(command: Message): Promise<Message> {
    const id = ++this.#next;
    const answer = this.process.waitFor((m) => m.id === id, {
      description: `the answer to command ${id} (${command.op})`,
    });
    await this.process.send({ id, ...command });
    return await answer;
  }

  enqueue(queue: string, functionId: string, payload: unknown): Promise<Message> {
    return this.send({ op: "enqueue", queue, function_id: functionId, payload });
  }

  /** A plain call; resolves with the result, rejects with the error. */
  async call(functionId: string, payload: unknown): Promise<Message> {
    const answer = await this.send({ op: "call", function_id: functionId, payload });
    if (answer.error !== undefined) throw new Error(JSON.stringify(answer.error));
    return answer.result as Message;
  }

  /** The next report with key `kind` (`delivered`, `failed`, …) matching `match`. */
  async report(
    kind: string,
    match: (value: Message) => boolean = () => true,
    timeoutMs?: number,
  ): Promise<Message> {
    const m = await this.process.waitFor((m) => kind in m && match(m[kind] as Message), {
      description: `a "${kind}" report matching ${describePredicate(match)}`,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    return m[kind] as Message;
  }

  stop(): Promise<Deno.CommandStatus> {
    return this.process.close();
  }
}
