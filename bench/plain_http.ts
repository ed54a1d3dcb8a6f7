/** The HTTP baseline: a plain Deno.serve handler echoing a JSON POST. Prints `port=<n>`. */
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const body = await req.json();
  return Response.json(body);
});
console.log(`port=${server.addr.port}`);
