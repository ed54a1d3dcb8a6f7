// The console's shell: the page router, the navigation and the live event stream.
import { fill, h } from "./ui.js";
import * as workers from "./pages/workers.js";
import * as functions from "./pages/functions.js";
import * as triggers from "./pages/triggers.js";
import * as queues from "./pages/queues.js";
import * as logs from "./pages/logs.js";
import * as traces from "./pages/traces.js";
import * as state from "./pages/state.js";

const PAGES = { workers, functions, triggers, queues, logs, traces, state };
const main = document.getElementById("main");
let current;

function route() {
  const parts = location.pathname.split("/").filter(Boolean);
  const name = PAGES[parts[0]] ? parts[0] : "workers";
  return { name, rest: parts.slice(1).map(decodeURIComponent) };
}

/** Shows the page at `path` (a pushState navigation; no reload). */
export function navigate(path) {
  if (path !== location.pathname + location.search) history.pushState({}, "", path);
  render();
}

function render() {
  current?.unmount?.();
  const { name, rest } = route();
  for (const a of document.querySelectorAll("nav a")) {
    a.classList.toggle("active", a.dataset.page === name);
  }
  document.title = `${PAGES[name].title} · engine console`;
  const root = h("div", { id: `page-${name}` });
  fill(main, offline, root);
  current = PAGES[name].mount(root, {
    rest,
    query: new URLSearchParams(location.search),
    navigate,
  });
}

document.addEventListener("click", (e) => {
  const a = e.target.closest?.("a[href^='/']");
  if (!a || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
  e.preventDefault();
  navigate(a.getAttribute("href"));
});
addEventListener("popstate", render);

// One stream for every page. While it is down, a banner says the page may be stale;
// when it is back, the page loads again (what changed meanwhile was not streamed).
const live = document.getElementById("live");
const offline = h("div", { class: "banner", "data-testid": "offline", hidden: true });
let lost = false;
let engineAway = false;
// The console refused this browser's token: the banner says that until the stream is back.
let tokenRefused = false;
function connect() {
  const events = new EventSource("/api/events");
  events.onopen = () => {
    engineAway = false;
    tokenRefused = false;
    offline.title = "";
    live.className = "live on";
    live.textContent = "live";
    offline.hidden = true;
    // The engine may have come back on another address or version: say what it is now.
    showEngine();
    if (lost) {
      lost = false;
      reload();
    }
  };
  events.onerror = () => {
    live.className = "live off";
    live.textContent = "reconnecting…";
    lost = true;
    offline.hidden = false;
    if (!tokenRefused) {
      offline.textContent = `Lost the connection to the console at ${location.host} (the ` +
        "engine may be stopped or restarting): what this page shows may be out of date. " +
        "Reconnecting…";
    }
    // EventSource gives up on an answer that is not a stream (a proxy's 502, a 401): start over.
    if (events.readyState === EventSource.CLOSED) {
      setTimeout(connect, 2000);
      sayIfTokenRefused();
    }
  };
  // The console in its own process (`engine console`) stays connected while the engine is
  // away: it says so on this stream, and again when the engine is back.
  events.addEventListener("link", (e) => {
    let state;
    try {
      state = JSON.parse(e.data);
    } catch {
      return;
    }
    if (!state.connected) {
      engineAway = true;
      live.className = "live off";
      live.textContent = "engine away";
      offline.hidden = false;
      offline.textContent =
        `The console lost its connection to the engine at ${state.engine_url} ` +
        "(it may be stopped or restarting): what this page shows may be out of date. Reconnecting…";
      offline.title = state.message;
    } else if (engineAway) {
      engineAway = false;
      live.className = "live on";
      live.textContent = "live";
      offline.hidden = true;
      showEngine();
      reload(); // what changed meanwhile was not streamed
    }
  });
  for (const name of ["log", "span", "engine", "state", "queues", "dropped"]) {
    events.addEventListener(name, (e) => {
      let data;
      try {
        data = JSON.parse(e.data);
      } catch {
        return;
      }
      current?.onEvent?.(name, data);
    });
  }
}
connect();

/**
 * The stream refused: when the console refuses this browser's token (it restarted with
 * another), the banner says so, rather than that the engine may be restarting.
 */
function sayIfTokenRefused() {
  fetch("/api/config").then(async (r) => {
    if (r.status !== 401 || offline.hidden) return;
    tokenRefused = true;
    const why = (await r.json().catch(() => undefined))?.error?.message;
    offline.textContent = "The console at " + location.host +
      " no longer accepts this browser's token: open it " +
      "again with ?token=<token> (the console's token). What this page shows may be out of date.";
    offline.title = why ?? "";
  }).catch(() => {});
}

/**
 * Reads the page's data again after the live stream was down (what changed meanwhile was not
 * streamed), keeping what the operator typed or opened; a page without `reload` is mounted anew.
 */
function reload() {
  if (current?.reload) current.reload();
  else render();
}

function showEngine() {
  fetch("/api/config").then((r) => r.json()).then((c) => {
    document.getElementById("engine-url").textContent = `${c.engine_url} · v${c.version}`;
  }).catch(() => {});
}

render();
