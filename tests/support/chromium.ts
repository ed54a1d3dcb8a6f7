/**
 * Debian's Chromium for the console's browser tests, driven through
 * playwright-core, with the flags these machines need (no sandbox as root,
 * no background networking: the closed network refuses it).
 *
 * @module
 */
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Starts Chromium (with `args` after ours); a missing one is an error saying how to install it. */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  try {
    Deno.statSync(CHROMIUM);
  } catch {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium" ` +
        "(the console's browser tests drive Debian's Chromium through playwright-core)",
    );
  }
  return await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...args] });
}
