/**
 * The `/ws/channels/{channel_id}?key=<access_key>&dir=read|write` endpoint's
 * decision, before any upgrade: which end of which channel, or why not (a
 * JSON error with 400, 404 or 409). The access key is the credential: the
 * iii-sdk's channel sockets carry no headers, so no token is asked for.
 *
 * @module
 */
import type { Direction } from "./channel.ts";
import type { ChannelRegistry } from "./registry.ts";

export const CHANNEL_PATH = "/ws/channels/";

export type ChannelRoute =
  | { kind: "channel"; id: string; key: string; direction: Direction }
  | { kind: "reply"; status: number; body: unknown };

/** Decides a request for `pathname` (under {@linkcode CHANNEL_PATH}) with query `search`. */
export function routeChannel(
  pathname: string,
  search: string,
  channels: ChannelRegistry | undefined,
): ChannelRoute {
  const id = pathname.slice(CHANNEL_PATH.length);
  if (id === "" || id.includes("/")) {
    return refuse(
      404,
      "NOT_FOUND",
      `No channel at ${
        JSON.stringify(pathname.slice(0, 200))
      }: use /ws/channels/<channel_id>?key=<access_key>&dir=read|write`,
    );
  }
  const query = new URLSearchParams(search);
  const key = query.get("key");
  const dir = query.get("dir");
  if (key === null || (dir !== "read" && dir !== "write")) {
    const problem = key === null ? 'no "key"' : `"dir" is ${JSON.stringify(dir)}`;
    return refuse(
      400,
      "BAD_REQUEST",
      `Channel ${
        JSON.stringify(id.slice(0, 100))
      }: ${problem}: use ?key=<access_key>&dir=read|write`,
    );
  }
  if (channels === undefined) {
    return refuse(404, "CHANNEL_NOT_FOUND", "This engine offers no data channels");
  }
  const refusal = channels.check(id, key, dir);
  if (refusal?.kind === "refused") {
    return refuse(refusal.status, refusal.code, refusal.message);
  }
  return { kind: "channel", id, key, direction: dir };
}

function refuse(status: number, code: string, message: string): ChannelRoute {
  return { kind: "reply", status, body: { error: { code, message } } };
}
