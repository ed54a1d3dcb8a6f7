/**
 * What both servers do with a socket on `/ws/channels/{id}`: claim the end
 * its route names (just before the upgrade, in the same turn as the route
 * was decided) and connect the socket to it once open.
 *
 * @module
 */
import type { Channel, Direction } from "../channels/channel.ts";
import { attachChannelSocket, type ChannelSocketEvents } from "../channels/socket_end.ts";
import type { NativeSocket } from "./native_socket.ts";
import type { ServerOptions } from "./options.ts";

/** A claimed end, or the reply refusing it. */
export type ChannelClaim =
  | { ok: true; channel: Channel; direction: Direction }
  | { ok: false; status: number; body: unknown };

/** Claims the end `route` names (route.ts checked it; a socket may have taken it since). */
export function claimChannel(
  route: { id: string; key: string; direction: Direction },
  options: ServerOptions,
): ChannelClaim {
  const outcome = options.channels?.claim(route.id, route.key, route.direction);
  if (outcome === undefined) {
    const body = {
      error: { code: "CHANNEL_NOT_FOUND", message: "This engine offers no data channels" },
    };
    return { ok: false, status: 404, body };
  }
  if (outcome.kind === "refused") {
    return {
      ok: false,
      status: outcome.status,
      body: { error: { code: outcome.code, message: outcome.message } },
    };
  }
  return { ok: true, channel: outcome.channel, direction: route.direction };
}

/** Connects a socket from `Deno.upgradeWebSocket` (not yet open) to its claimed end. */
export function serveDenoChannel(
  socket: WebSocket,
  claim: ChannelClaim & { ok: true },
  options: ServerOptions,
): void {
  let events: ChannelSocketEvents | undefined;
  socket.binaryType = "arraybuffer";
  socket.onopen = () => {
    events = attachChannelSocket(claim.channel, claim.direction, {
      get bufferedAmount() {
        return socket.bufferedAmount;
      },
      send: (text) => socket.send(text),
      sendBinary: (bytes) => socket.send(bytes),
      close: (code, reason) => socket.close(code, reason),
    }, options.log);
  };
  socket.onmessage = (e) => {
    if (typeof e.data === "string") events?.text(e.data);
    else if (e.data instanceof ArrayBuffer) events?.binary(new Uint8Array(e.data));
  };
  socket.onclose = (e) => {
    if (events) return events.closed(e.code, e.reason);
    abandon(claim);
  };
  socket.onerror = () => {/* onclose follows */};
}

/** Runs a native socket (handshake written) on its claimed end until it closes. */
export async function serveNativeChannel(
  socket: NativeSocket,
  claim: ChannelClaim & { ok: true },
  leftover: Uint8Array,
  options: ServerOptions,
): Promise<void> {
  const events = attachChannelSocket(claim.channel, claim.direction, socket, options.log);
  socket.onText = (text) => events.text(text);
  // The reader's buffer is reused: the channel keeps a copy.
  socket.onBinary = (bytes) => events.binary(bytes.slice());
  let code = 1006;
  let reason = "";
  try {
    ({ code, reason } = await socket.run(leftover));
  } finally {
    events.closed(code, reason);
  }
}

/** A claimed end whose socket never opened. */
function abandon(claim: ChannelClaim & { ok: true }): void {
  if (claim.direction === "write") claim.channel.endWrite("its writer's socket never opened");
  else claim.channel.endRead();
}
