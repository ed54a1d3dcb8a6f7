// Queues: HTTP requests waiting for a slot, calls in flight, durable queues.
import { api, badge, errorBox, fill, h } from "../ui.js";

export const title = "Queues";

export function mount(root) {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  fill(
    root,
    h("h1", {}, "Queues"),
    h("p", { class: "sub" }, "What waits and what runs right now"),
    body,
  );
  const draw = (q) => {
    const stat = (n, label, id) =>
      h(
        "div",
        { class: "stat", "data-testid": id },
        h("div", { class: "n" }, String(n)),
        h("div", { class: "l" }, label),
      );
    fill(
      body,
      h(
        "div",
        { class: "stats" },
        stat(q.http ? q.http.waiting : "–", "HTTP requests waiting for a slot", "http-waiting"),
        stat(q.http ? q.http.in_flight : "–", "HTTP requests in progress", "http-in-flight"),
        stat(q.invocations.in_flight, "calls in flight", "calls-in-flight"),
      ),
      h(
        "div",
        { class: "split" },
        table("Calls in flight per function", "Function", q.invocations.per_function),
        table("Calls in flight per worker", "Worker", q.invocations.per_worker),
      ),
      h("h2", {}, "Durable queues"),
      durable(q.durable),
    );
  };
  api("/queues").then(draw, (e) => fill(body, errorBox(e)));
  return {
    onEvent(name, data) {
      if (name === "queues") draw(data);
    },
  };
}

function table(heading, column, counts) {
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1]);
  return h(
    "div",
    {},
    h("h2", {}, heading),
    entries.length === 0 ? h("div", { class: "empty" }, "Nothing in flight") : h(
      "table",
      {},
      h("tr", {}, h("th", {}, column), h("th", { class: "num" }, "In flight")),
      entries.map(([k, n]) =>
        h("tr", {}, h("td", { class: "mono" }, k), h("td", { class: "num" }, String(n)))
      ),
    ),
  );
}

function durable(d) {
  if (d === null) return h("div", { class: "empty" }, "No queue worker is installed");
  if (!d.queues?.length) return h("div", { class: "empty" }, "No durable queues yet");
  return h(
    "table",
    { "data-testid": "durable-queues" },
    h(
      "tr",
      {},
      h("th", {}, "Queue"),
      h("th", { class: "num" }, "Waiting"),
      h("th", { class: "num" }, "In flight"),
      h("th", { class: "num" }, "Dead letters"),
    ),
    d.queues.map((q) =>
      h(
        "tr",
        {},
        h(
          "td",
          { class: "mono" },
          q.name,
          q.configured === false ? [" ", badge("ad hoc", "")] : null,
        ),
        h("td", { class: "num" }, String(q.depth)),
        h("td", { class: "num" }, String(q.in_flight)),
        h("td", { class: "num" }, q.dead_letters ? badge(String(q.dead_letters), "error") : "0"),
      )
    ),
  );
}
