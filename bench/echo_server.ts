/** A plain WebSocket echo server (the baseline): prints `port=<n>`. */
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.onmessage = (e) => socket.send(e.data);
  return response;
});
console.log(`port=${server.addr.port}`);
