// Small helpers shared by the pages: DOM building, the JSON API, formatting.

/** Creates an element: h("td", {class: "num"}, "3"). Attributes starting with "on" are listeners. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") el.className = value;
    else if (key === "value") el.value = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Calls the console API; throws an Error with the engine's message on failure. */
export async function api(path, options = {}) {
  const init = { method: options.method ?? "GET", headers: {} };
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    init.headers["content-type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(`/api${path}`, init);
  } catch {
    throw new Error(
      `Cannot reach the console at ${location.host}: the engine may be stopped or restarting`,
    );
  }
  let data;
  try {
    data = await response.json();
  } catch {
    throw new Error(`${response.status} ${response.statusText}`);
  }
  if (!response.ok) {
    const e = new Error(data?.error?.message ?? `${response.status} ${response.statusText}`);
    e.code = data?.error?.code;
    throw e;
  }
  return data;
}

const pad = (n, w = 2) => String(n).padStart(w, "0");

/** The time of day of `ms` in the browser's time zone: "14:02:03.123". */
export function time(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${
    pad(d.getMilliseconds(), 3)
  }`;
}

/**
 * When an entry was written, in the browser's time zone: the time of day for one from today,
 * the date too for one from another day ("2025-03-08 23:59:59.999"), which the time alone
 * would pass off as today's.
 */
export function stamp(ms, now = Date.now()) {
  const d = new Date(ms);
  const today = new Date(now);
  const sameDay = d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() &&
    d.getDate() === today.getDate();
  if (sameDay) return time(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time(ms)}`;
}

/** The ISO time in UTC, for hover text: what a time of day alone cannot say. */
export function isoTime(ms) {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString();
}

export function since(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s ago`;
  const hours = Math.floor(s / 3600);
  return hours < 48
    ? `${hours}h ${Math.floor((s % 3600) / 60)}m ago`
    : `${Math.floor(hours / 24)}d ago`;
}

// Text that says how long ago (or how soon) something is goes stale as the page stays open:
// elements made by tick() compute their text again every second while they are on the page.
const ticking = new Set();
let ticker;

/** An element whose text is `text(Date.now())`, kept current every second while it is shown. */
export function tick(tag, attrs, text) {
  const el = h(tag, attrs, text(Date.now()));
  el.tickText = text;
  ticking.add(el);
  ticker ??= setInterval(() => {
    const now = Date.now();
    for (const t of ticking) {
      if (!t.isConnected) ticking.delete(t);
      else t.textContent = t.tickText(now);
    }
    if (ticking.size === 0) {
      clearInterval(ticker);
      ticker = undefined;
    }
  }, 1000);
  return el;
}

/** Log and error text longer than this (characters or lines) shows its start and a button for the rest. */
const CLAMP_CHARS = 600;
const CLAMP_LINES = 8;

/**
 * A message as text; a very long one (a dumped body, a minified file) shows its first
 * lines and a button that shows the whole, so one entry cannot fill screens of the log.
 */
export function longText(text) {
  const value = String(text ?? "");
  const lines = value.split("\n", CLAMP_LINES + 1);
  if (value.length <= CLAMP_CHARS && lines.length <= CLAMP_LINES) return value;
  const head = lines.slice(0, CLAMP_LINES).join("\n").slice(0, CLAMP_CHARS);
  const span = h("span", { class: "clamped" }, `${head}… `);
  const more = h(
    "button",
    { class: "link", type: "button", "data-testid": "show-all" },
    `show all ${value.length.toLocaleString("en-US")} characters`,
  );
  more.onclick = (e) => {
    e.stopPropagation();
    span.textContent = value;
  };
  span.append(more);
  return span;
}

/**
 * A duration for people: "250 µs", "12.3 ms", "1.5 s", "2 min 5 s". Exactly 0 is "< 1 ms":
 * spans are timed in whole milliseconds, so 0 means under one, not no time at all.
 */
export function duration(ms) {
  if (ms === undefined || ms === null) return "";
  if (ms === 0) return "< 1 ms";
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  const s = Math.round(ms / 1000);
  return s < 3600
    ? `${Math.floor(s / 60)} min ${s % 60} s`
    : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function json(value, indent = 2) {
  try {
    return JSON.stringify(value, null, indent);
  } catch {
    return String(value);
  }
}

export function short(value, max = 120) {
  const text = typeof value === "string" ? value : json(value, 0);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * For reads of a page that may overlap (a list read again on every change, a filter typed):
 * `const reads = newest();` once, then per read `const fresh = reads();` before asking and
 * `if (!fresh()) return;` once answered. An answer that arrives after a later read was sent
 * is dropped: it may be older than what the page shows (a slow answer to the first of two
 * reads took a worker that had just connected off the page, or showed the entries of the
 * filter typed before).
 */
export function newest() {
  let latest = 0;
  return () => {
    const mine = ++latest;
    return () => mine === latest;
  };
}

/** Runs `fn` at most once per `ms`, trailing call included. */
export function throttle(fn, ms) {
  let timer;
  let again = false;
  return () => {
    if (timer) {
      again = true;
      return;
    }
    fn();
    timer = setTimeout(function tick() {
      timer = undefined;
      if (again) {
        again = false;
        fn();
        timer = setTimeout(tick, ms);
      }
    }, ms);
  };
}

const STACK_KEYS = ["stacktrace", "stack"];

/**
 * Log data as a one-line summary that opens to the whole value; a stack trace
 * in it (`stacktrace`, `stack`) opens as lines of its own rather than one JSON string.
 */
export function dataView(data) {
  if (data === undefined) return null;
  const stackKey = data && typeof data === "object" && !Array.isArray(data)
    ? STACK_KEYS.find((k) => typeof data[k] === "string" && data[k].includes("\n"))
    : undefined;
  const rest = stackKey ? { ...data, [stackKey]: undefined } : data;
  return h(
    "details",
    {},
    h("summary", { class: "muted" }, short(rest, 80), stackKey ? ` + ${stackKey}` : ""),
    h("pre", {}, json(rest)),
    stackKey ? h("pre", { class: "stack", "data-testid": "stack" }, data[stackKey]) : null,
  );
}

export function badge(text, kind = text) {
  return h("span", { class: `badge ${kind}` }, text);
}

export function errorBox(e) {
  return h("div", { class: "result error" }, h("pre", {}, e?.message ?? String(e)));
}

/** Parses JSON typed by a person; throws with the parser's reason. */
export function parseJson(text, what) {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} is not valid JSON: ${e.message}`);
  }
}
