/**
 * The NATS side of `bench:compare`: answers requests on `<subject>` with the
 * payload it got, decoded and re-encoded as JSON (what an engine handler
 * does with its payload). Usage: `nats_responder.ts <nats-url> <subject>`;
 * prints `ready` once the subscription is known to the server.
 */
import { connect } from "nats";

const [server, subject] = Deno.args;
const nc = await connect({ servers: server! });
const enc = new TextEncoder();
const dec = new TextDecoder();
nc.subscribe(subject!, {
  callback: (err, msg) => {
    if (err) return;
    msg.respond(enc.encode(JSON.stringify(JSON.parse(dec.decode(msg.data)))));
  },
});
await nc.flush();
console.log("ready");
Deno.addSignalListener("SIGTERM", () => {
  nc.close().finally(() => Deno.exit(0));
});
