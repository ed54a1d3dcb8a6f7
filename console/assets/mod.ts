/**
 * The console's browser files, imported as text so they are part of the
 * program (`deno compile` and `deno bundle` carry them; nothing is built or
 * fetched at run time).
 *
 * @module
 */
import indexHtml from "./index.html" with { type: "text" };
import styleCss from "./style.css" with { type: "text" };
import partsCss from "./parts.css" with { type: "text" };
import uiJs from "./ui.js" with { type: "text" };
import appJs from "./app.js" with { type: "text" };
import workersJs from "./pages/workers.js" with { type: "text" };
import workerRowsJs from "./pages/worker_rows.js" with { type: "text" };
import functionsJs from "./pages/functions.js" with { type: "text" };
import triggersJs from "./pages/triggers.js" with { type: "text" };
import queuesJs from "./pages/queues.js" with { type: "text" };
import deadLettersJs from "./pages/dead_letters.js" with { type: "text" };
import logsJs from "./pages/logs.js" with { type: "text" };
import tracesJs from "./pages/traces.js" with { type: "text" };
import stateJs from "./pages/state.js" with { type: "text" };

export interface Asset {
  body: string;
  type: string;
}

const JS = "text/javascript; charset=utf-8";

export const INDEX_HTML: string = indexHtml;

/** By path under `/assets/`. */
export const ASSETS: Record<string, Asset> = {
  // Two files, one stylesheet: the page loads one, in this order.
  "style.css": { body: `${styleCss}\n${partsCss}`, type: "text/css; charset=utf-8" },
  "ui.js": { body: uiJs, type: JS },
  "app.js": { body: appJs, type: JS },
  "pages/workers.js": { body: workersJs, type: JS },
  "pages/worker_rows.js": { body: workerRowsJs, type: JS },
  "pages/functions.js": { body: functionsJs, type: JS },
  "pages/triggers.js": { body: triggersJs, type: JS },
  "pages/queues.js": { body: queuesJs, type: JS },
  "pages/dead_letters.js": { body: deadLettersJs, type: JS },
  "pages/logs.js": { body: logsJs, type: JS },
  "pages/traces.js": { body: tracesJs, type: JS },
  "pages/state.js": { body: stateJs, type: JS },
};
