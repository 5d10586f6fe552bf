#!/usr/bin/env node
// Check the rendered website before it is deployed.
//
//   node tools/sitecheck/check_site.mjs [options] [SITE]    (SITE: _book)
//
//   --skip LIST            any of links,axe,layout,lighthouse,hosts (commas)
//   --only PAGE            check one page (path inside SITE), repeatable
//   --min-performance N    Lighthouse performance floor (default 0.95)
//   --min-accessibility N  Lighthouse accessibility floor (default 1)
//   --serve                only serve SITE as checked (gzip), until Ctrl-C
//
// SITE is served from 127.0.0.1 with gzip, as GitHub Pages serves it, and
// every HTML page is opened in headless Chromium (CHROME_PATH, or the first
// of chromium, chromium-browser, google-chrome, google-chrome-stable on
// PATH). Each page must pass five checks, and log no JavaScript error
// (an uncaught exception or a console error, such as a failed request),
// no warning of a preload it never used (a wasted download), show no
// explorer's result for a number its reader has just cleared, no table
// row whose cells stand out of their columns, and no figure as drawn, a
// white box, in the dark scheme (these tried on the page axe scrolls
// through, where the explorers load, so `--skip axe` skips them too):
//   links       every internal link, image, script and stylesheet resolves
//               to a file of SITE, and every #anchor to an id on its page
//               (cross-reference targets, notebook and PDF downloads);
//   axe         axe-core finds no serious or critical violation, with the
//               light and with the dark colour scheme;
//   layout      nothing asks a reader to scroll sideways that need not: on
//               a phone the page, its opened chapters' menu and every
//               equation fit the screen; on a desktop every printed output
//               fits its column;
//               on a phone a link from another page lands its target
//               below the fixed header; and nothing moves under the
//               reader: at both widths every block laid out only near the
//               screen stands in at about its height (within a row on the
//               first screen, else two rows or a sixth);
//   hosts       loading the page requests nothing from another host;
//   lighthouse  every page but 404.html scores at least the floors above
//               (Lighthouse's default mobile profile, simulated throttling;
//               a performance score below the floor is measured five times
//               and the median counts, as scores vary from run to run).
// It prints a table of the results and every problem with the page it is
// on, and exits 1 if there is any problem (2 if it cannot run at all).
// Setup: `bash tools/sitecheck/install.sh` (npm ci; no package downloads
// a browser).

// Its parts are the modules beside this file, one concern each: options
// (the command line), site (its files), server, chromium, visit (a page in
// the browser), axe, fields, tables, figures, layout, placeholders,
// landing, links, lighthouse and report.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

import { findChromium, launchChromium } from "./chromium.mjs";
import { lighthouseCheck } from "./lighthouse.mjs";
import { landingProblems } from "./landing.mjs";
import { layoutProblems } from "./layout.mjs";
import { brokenLinks, idsOfPages } from "./links.mjs";
import { parseArguments, usage } from "./options.mjs";
import { printReport } from "./report.mjs";
import { serve } from "./server.mjs";
import { htmlPages } from "./site.mjs";
import { openTab, visit, visitProblems } from "./visit.mjs";

const require = createRequire(import.meta.url);

// Here, in the file that is run, not in a module: a missing package's
// error names the file that imported it.
async function loadPackages() {
  try {
    const puppeteer = (await import("puppeteer-core")).default;
    const lighthouse = (await import("lighthouse")).default;
    const axeSource = fs.readFileSync(
      require.resolve("axe-core/axe.min.js"),
      "utf8",
    );
    return { puppeteer, lighthouse, axeSource };
  } catch (error) {
    usage(
      `${error.message}\nthe site check's packages are missing: ` +
        "run `bash tools/sitecheck/install.sh`",
    );
  }
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const root = path.resolve(options.site);
  if (!fs.existsSync(path.join(root, "index.html"))) {
    usage(`${options.site} has no index.html: render the book first`);
  }
  let pages = htmlPages(root);
  if (options.only.length) {
    const unknown = options.only.filter((p) => !pages.includes(p));
    if (unknown.length) usage(`no such page in ${options.site}: ${unknown}`);
    pages = options.only;
  }
  if (options.serveOnly) {
    const server = await serve(root);
    const { port } = server.address();
    console.log(`serving ${options.site} on http://127.0.0.1:${port}/`);
    return;
  }
  const run = (check) => !options.skip.has(check);
  const { puppeteer, lighthouse, axeSource } = await loadPackages();
  const executablePath = findChromium();
  const server = await serve(root);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const { browser, userDataDir } = await launchChromium(
    puppeteer,
    executablePath,
  );
  console.log(
    `site check of ${options.site} (${pages.length} page${pages.length === 1 ? "" : "s"}) on ${origin} ` +
      `with ${await browser.version()}`,
  );
  const problems = [];
  const problem = (page, text) => problems.push({ page, text });
  const visits = new Map();
  const rows = [];
  try {
    const schemes = run("axe") ? ["light", "dark"] : [];
    const tab = await openTab(browser, origin);
    for (const page of pages) {
      const visited = await visit(tab, `${origin}/${page}`, {
        axeSource,
        schemes,
      });
      visits.set(page, visited);
      for (const text of visitProblems(page, visited, run("hosts"))) {
        problem(page, text);
      }
      if (run("layout")) {
        const url = `${origin}/${page}`;
        for (const text of await layoutProblems(browser, url)) {
          problem(page, text);
        }
        for (const text of await landingProblems(browser, url)) {
          problem(page, text);
        }
      }
    }
    const idsOf = idsOfPages(root, visits);
    const linkProblems = new Map();
    if (run("links")) {
      for (const page of pages) {
        const found = brokenLinks(
          root,
          origin,
          `${origin}/${page}`,
          visits.get(page).references,
          idsOf,
        );
        linkProblems.set(page, found.length);
        for (const text of found) problem(page, text);
      }
    }
    for (const page of pages) {
      const visited = visits.get(page);
      const axeCount = (scheme) =>
        run("axe") ? String(visited.axe[scheme].length) : "-";
      const row = {
        page,
        performance: "-",
        accessibility: "-",
        axeLight: axeCount("light"),
        axeDark: axeCount("dark"),
        links: run("links") ? String(linkProblems.get(page)) : "-",
        hosts: run("hosts") ? String(new Set(visited.otherHosts).size) : "-",
      };
      if (run("lighthouse") && page !== "404.html") {
        const lh = await lighthouseCheck(lighthouse, browser, origin, page, {
          minPerformance: options.minPerformance,
          minAccessibility: options.minAccessibility,
          hosts: run("hosts"),
        });
        row.performance = lh.performance;
        row.accessibility = lh.accessibility;
        for (const text of lh.problems) problem(page, text);
      }
      rows.push(row);
    }
  } finally {
    await browser.close().catch(() => {});
    server.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  if (printReport(rows, problems, pages, options.skip)) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`check_site: ${error.stack || error}`);
  process.exit(2);
});
