/**
 * The `quickstart` template: an empty engine config, a README that walks
 * through the next commands, a Python worker (`math::add`) and a worker on
 * the TypeScript SDK (`math::add_two_numbers`, which calls `math::add`).
 * Both SDKs ship inside the project, so it runs with no package registry.
 *
 * @module
 */

import type { Template, TemplateFile } from "../mod.ts";
import readme from "./README.md" with { type: "text" };
import config from "./engine-config.yaml" with { type: "text" };
import gitignore from "./gitignore.txt" with { type: "text" };
import { PYTHON_SDK } from "./sdk_py.gen.ts";
import mathManifest from "./workers/math-worker/engine.worker.yaml" with { type: "text" };
import mathWorker from "./workers/math-worker/math_worker.py" with { type: "text" };
import callerManifest from "./workers/caller-worker/engine.worker.yaml" with { type: "text" };
import callerWorker from "./workers/caller-worker/worker.mjs" with { type: "text" };
import sdkBundle from "./workers/caller-worker/engine-sdk.mjs" with { type: "text" };

const MATH = "workers/math-worker";
const CALLER = "workers/caller-worker";

const files: TemplateFile[] = [
  { path: "README.md", content: readme },
  { path: "engine-config.yaml", content: config },
  { path: ".gitignore", content: gitignore },
  { path: `${MATH}/engine.worker.yaml`, content: mathManifest },
  { path: `${MATH}/math_worker.py`, content: mathWorker },
  ...Object.entries(PYTHON_SDK).map(([name, content]) => ({
    path: `${MATH}/engine_sdk/${name}`,
    content,
  })),
  { path: `${CALLER}/engine.worker.yaml`, content: callerManifest },
  { path: `${CALLER}/worker.mjs`, content: callerWorker },
  { path: `${CALLER}/engine-sdk.mjs`, content: sdkBundle },
];

export const quickstart: Template = {
  name: "quickstart",
  description: "a Python worker (math::add) and a TypeScript-SDK worker that calls it",
  files,
  nextSteps: [
    "engine --config engine-config.yaml        # start the engine; then, in a second terminal:",
    "engine worker add ./workers/math-worker",
    `engine trigger --function-id=math::add --payload='{"a":2,"b":3}'`,
    "engine worker add ./workers/caller-worker",
    `engine trigger --function-id=math::add_two_numbers --payload='{"a":10,"b":20}'`,
  ],
};
