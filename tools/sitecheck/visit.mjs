// Visiting a page in Chromium: what it requests and logs while it loads,
// axe-core in each colour scheme, its explorers' fields, its tables, its
// figures in the dark scheme, its links and ids.

import { axeProblem, axeViolations } from "./axe.mjs";
import { staleFieldProblems } from "./fields.mjs";
import { glaringFigures } from "./figures.mjs";
import { pageLinks } from "./links.mjs";
import { misalignedTableProblems } from "./tables.mjs";

// One browser tab for every page: requests to other hosts are recorded
// (and blocked, so nothing waits on them) for the page being visited.
export async function openTab(browser, origin) {
  const page = await browser.newPage();
  const tab = { page, otherHosts: [], errors: [], preloads: [] };
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    const target = new URL(request.url());
    const web = /^(https?|wss?):$/.test(target.protocol);
    if (web && target.origin !== origin) {
      tab.otherHosts.push(request.url());
      request.abort("blockedbyclient");
    } else request.continue();
  });
  // Uncaught exceptions and console.error messages (a failed request is
  // one), in either scheme, fail the page.
  page.on("pageerror", (error) => tab.errors.push(String(error.message)));
  page.on("console", (message) => {
    // Chromium's warning about a preload the page never used (a wasted
    // download), or fetched twice since its credentials did not match.
    if (message.type() === "warn" && /\bpreload/.test(message.text())) {
      tab.preloads.push(message.text());
    }
    if (message.type() !== "error") return;
    const where = message.location()?.url;
    tab.errors.push(message.text() + (where ? ` (${where})` : ""));
  });
  return tab;
}

// Load a page; collect its links, ids, requests to other hosts and (when
// asked) axe-core's serious and critical violations in each scheme.
export async function visit(tab, url, { axeSource, schemes }) {
  const { page } = tab;
  const otherHosts = (tab.otherHosts = []);
  const errors = (tab.errors = []);
  const preloads = (tab.preloads = []);
  const result = {
    otherHosts,
    errors,
    preloads,
    axe: {},
    staleFields: [],
    tables: [],
    glare: [],
    status: 0,
  };
  let first = true;
  let loaded = 0;
  for (const scheme of schemes.length ? schemes : ["light"]) {
    if (!first) await unusedPreloadsReported(page, loaded);
    await page.emulateMediaFeatures([
      { name: "prefers-color-scheme", value: scheme },
    ]);
    // The first load waits for the network to go quiet, so requests made
    // after `load` (fonts, lazy scripts) are recorded too.
    const response = await page.goto(url, {
      waitUntil: first ? ["load", "networkidle0"] : "load",
      timeout: 60000,
    });
    if (first) loaded = Date.now();
    first = false;
    result.status = response ? response.status() : 0;
    if (!schemes.length) break;
    // Scroll through the page as a reader would, so that what loads on
    // demand (the explorers) loads, is checked and logs its errors too.
    await page.evaluate(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      for (let y = 0; y < document.body.scrollHeight; y += innerHeight / 2) {
        window.scrollTo(0, y);
        await frame();
        await frame();
      }
      window.scrollTo(0, 0);
    });
    await page.waitForNetworkIdle({ idleTime: 500, timeout: 30000 });
    result.axe[scheme] = await axeViolations(page, axeSource);
    if (scheme === "dark") result.glare = await glaringFigures(page);
    // The explorers have loaded (only on a page scrolled through, so not
    // with --skip axe); once is enough for what they compute.
    if (scheme === schemes[0]) {
      result.staleFields = await staleFieldProblems(page);
      result.tables = await misalignedTableProblems(page);
    }
  }
  Object.assign(result, await pageLinks(page));
  if (schemes.length < 2) await unusedPreloadsReported(page, loaded);
  return result;
}

// Chromium warns of an unused preload 3 s after the page's load event.
const PRELOAD_GRACE_MS = 3500;

async function unusedPreloadsReported(page, loaded) {
  const preloads = await page.$$eval('link[rel="preload"]', (l) => l.length);
  const left = preloads ? loaded + PRELOAD_GRACE_MS - Date.now() : 0;
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
}

// A visit's problems with its page, in the order they are reported:
// its HTTP status, axe's violations, other hosts (when checked), errors.
export function visitProblems(page, visited, hosts) {
  const problems = [];
  if (visited.status >= 400 && page !== "404.html") {
    problems.push(`HTTP ${visited.status}`);
  }
  for (const [scheme, violations] of Object.entries(visited.axe)) {
    for (const v of violations) problems.push(axeProblem(scheme, v));
  }
  if (hosts) {
    for (const url of new Set(visited.otherHosts)) {
      problems.push(`requests another host while loading: ${url}`);
    }
  }
  problems.push(...visited.staleFields);
  problems.push(...visited.tables);
  problems.push(...visited.glare);
  for (const error of new Set(visited.errors)) {
    problems.push(`JavaScript error in the console: ${error}`);
  }
  for (const warning of new Set(visited.preloads)) {
    problems.push(`a preload the page does not use: ${warning}`);
  }
  return problems;
}
