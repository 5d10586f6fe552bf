// Chromium: which one, and starting it for the check.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { usage } from "./options.mjs";

const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function findChromium() {
  if (process.env.CHROME_PATH) {
    if (fs.existsSync(process.env.CHROME_PATH)) return process.env.CHROME_PATH;
    usage(`CHROME_PATH=${process.env.CHROME_PATH} does not exist`);
  }
  const names = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
  ];
  for (const name of names) {
    try {
      return execFileSync("which", [name], { encoding: "utf8" }).trim();
    } catch {
      // not on PATH; try the next name
    }
  }
  usage(
    "no Chromium found: install it (Debian: apt-get install chromium) " +
      "or set CHROME_PATH to a Chromium or Chrome executable",
  );
}

// Chromium with a profile of its own (userDataDir), which the caller
// removes once the browser is closed.
export async function launchChromium(puppeteer, executablePath) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitecheck-"));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir,
    // A cold start reads Chromium's executable (about 300 MB) from disk.
    // On a virtual machine whose page cache had been reclaimed that took
    // 15 to 20 s, and twice longer than puppeteer's default of 30 s.
    timeout: 120000,
    // puppeteer passes --headless itself (with headless: true).
    args: CHROMIUM_FLAGS.filter((flag) => flag !== "--headless"),
  });
  return { browser, userDataDir };
}
