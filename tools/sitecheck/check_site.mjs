#!/usr/bin/env node
// Check the rendered website before it is deployed.
//
//   node tools/sitecheck/check_site.mjs [options] [SITE]    (SITE: _book)
//
//   --skip LIST            any of links,axe,lighthouse,hosts (comma list)
//   --only PAGE            check one page (path inside SITE), repeatable
//   --min-performance N    Lighthouse performance floor (default 0.95)
//   --min-accessibility N  Lighthouse accessibility floor (default 1)
//   --serve                only serve SITE as checked (gzip), until Ctrl-C
//
// SITE is served from 127.0.0.1 with gzip, as GitHub Pages serves it, and
// every HTML page is opened in headless Chromium (CHROME_PATH, or the first
// of chromium, chromium-browser, google-chrome, google-chrome-stable on
// PATH). Each page must pass four checks, and log no JavaScript error
// (an uncaught exception or a console error, such as a failed request):
//   links       every internal link, image, script and stylesheet resolves
//               to a file of SITE, and every #anchor to an id on its page
//               (cross-reference targets, notebook and PDF downloads);
//   axe         axe-core finds no serious or critical violation, with the
//               light and with the dark colour scheme;
//   hosts       loading the page requests nothing from another host;
//   lighthouse  every page but 404.html scores at least the floors above
//               (Lighthouse's default mobile profile, simulated throttling).
// It prints a table of the results and every problem with the page it is
// on, and exits 1 if there is any problem (2 if it cannot run at all).
// Setup: `npm ci` in tools/sitecheck (no package downloads a browser).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

const require = createRequire(import.meta.url);

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
const CHECKS = ["links", "axe", "lighthouse", "hosts"];
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".ipynb": "application/x-ipynb+json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".xml": "application/xml",
  ".txt": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".pdf": "application/pdf",
};
const COMPRESSIBLE = /^(text\/|application\/(json|xml|x-ipynb)|image\/svg)/;
const NOT_CHECKED = /^(mailto|tel|javascript|data|blob|about):/i;
const LINK_ATTRIBUTES = [
  ["a", "href"],
  ["area", "href"],
  ["link", "href"],
  ["img", "src"],
  ["script", "src"],
  ["iframe", "src"],
  ["source", "src"],
  ["video", "src"],
  ["audio", "src"],
  ["embed", "src"],
  ["object", "data"],
];

// ------------------------------------------------------------- arguments

function usage(message) {
  console.error(`check_site: ${message}`);
  console.error(
    "usage: node tools/sitecheck/check_site.mjs [--skip LIST] " +
      "[--only PAGE] [--min-performance N] [--min-accessibility N] " +
      "[--serve] [SITE]",
  );
  process.exit(2);
}

function parseArguments(argv) {
  const options = {
    site: "_book",
    skip: new Set(),
    only: [],
    minPerformance: 0.95,
    minAccessibility: 1,
    serveOnly: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${argument} needs a value`);
      return argv[++i];
    };
    const number = () => {
      const n = Number(value());
      if (!(n >= 0 && n <= 1.01)) usage(`${argument} takes a score 0..1`);
      return n;
    };
    if (argument === "--skip") {
      for (const check of value().split(",").filter(Boolean)) {
        if (!CHECKS.includes(check)) usage(`unknown check "${check}"`);
        options.skip.add(check);
      }
    } else if (argument === "--only") options.only.push(value());
    else if (argument === "--serve") options.serveOnly = true;
    else if (argument === "--min-performance") options.minPerformance = number();
    else if (argument === "--min-accessibility")
      options.minAccessibility = number();
    else if (argument === "-h" || argument === "--help") {
      console.log(fs.readFileSync(new URL(import.meta.url), "utf8")
        .split("\n").slice(1, 26).map((l) => l.replace(/^\/\/ ?/, ""))
        .join("\n"));
      process.exit(0);
    } else if (argument.startsWith("-")) usage(`unknown option ${argument}`);
    else options.site = argument;
  }
  return options;
}

// ------------------------------------------------------------- the site

function htmlPages(root) {
  const pages = [];
  const walk = (directory) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      const relative = path.relative(root, full).split(path.sep).join("/");
      if (entry.isDirectory()) {
        if (relative !== "site_libs") walk(full);
      } else if (entry.name.endsWith(".html")) pages.push(relative);
    }
  };
  walk(root);
  return pages.sort((a, b) =>
    a === "index.html" ? -1 : b === "index.html" ? 1 : a.localeCompare(b),
  );
}

// A file of the site for a URL path, as GitHub Pages maps them.
function fileFor(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const file = path.join(root, decoded);
  if (file !== root && !file.startsWith(root + path.sep)) return null;
  if (!fs.existsSync(file)) return null;
  if (fs.statSync(file).isDirectory()) {
    const index = path.join(file, "index.html");
    return fs.existsSync(index) ? index : null;
  }
  return file;
}

// Static server with gzip for text types, like GitHub Pages.
function serve(root) {
  const cache = new Map();
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, "http://127.0.0.1");
    const directory = path.join(root, decodeURIComponent(url.pathname));
    if (
      !url.pathname.endsWith("/") &&
      fs.existsSync(directory) &&
      fs.statSync(directory).isDirectory()
    ) {
      response.writeHead(301, { Location: `${url.pathname}/` });
      response.end();
      return;
    }
    let status = 200;
    let file = fileFor(root, url.pathname);
    if (file === null) {
      status = 404;
      file = fileFor(root, "/404.html");
    }
    if (file === null) {
      response.writeHead(404, { "Content-Type": "text/plain" });
      response.end("not found");
      return;
    }
    const type =
      TYPES[path.extname(file).toLowerCase()] || "application/octet-stream";
    const gzip =
      COMPRESSIBLE.test(type) &&
      /\bgzip\b/.test(request.headers["accept-encoding"] || "");
    const key = `${file}\0${gzip}`;
    if (!cache.has(key)) {
      const body = fs.readFileSync(file);
      cache.set(key, gzip ? zlib.gzipSync(body) : body);
    }
    const body = cache.get(key);
    const headers = {
      "Content-Type": type,
      "Content-Length": body.length,
      "Cache-Control": "max-age=600",
      Vary: "Accept-Encoding",
    };
    if (gzip) headers["Content-Encoding"] = "gzip";
    response.writeHead(status, headers);
    response.end(request.method === "HEAD" ? undefined : body);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

// ------------------------------------------------------------- Chromium

function findChromium() {
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
        "run `npm ci` in tools/sitecheck",
    );
  }
}

// One browser tab for every page: requests to other hosts are recorded
// (and blocked, so nothing waits on them) for the page being visited.
async function openTab(browser, origin) {
  const page = await browser.newPage();
  const tab = { page, otherHosts: [], errors: [] };
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
    if (message.type() !== "error") return;
    const where = message.location()?.url;
    tab.errors.push(message.text() + (where ? ` (${where})` : ""));
  });
  return tab;
}

// Load a page; collect its links, ids, requests to other hosts and (when
// asked) axe-core's serious and critical violations in each scheme.
async function visit(tab, url, { axeSource, schemes }) {
  const { page } = tab;
  const otherHosts = (tab.otherHosts = []);
  const errors = (tab.errors = []);
  const result = { otherHosts, errors, axe: {}, status: 0 };
  let first = true;
  for (const scheme of schemes.length ? schemes : ["light"]) {
    await page.emulateMediaFeatures([
      { name: "prefers-color-scheme", value: scheme },
    ]);
    // The first load waits for the network to go quiet, so requests made
    // after `load` (fonts, lazy scripts) are recorded too.
    const response = await page.goto(url, {
      waitUntil: first ? ["load", "networkidle0"] : "load",
      timeout: 60000,
    });
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
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const run = await window.axe.run(document, {
        resultTypes: ["violations"],
      });
      return run.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map((node) => node.target.join(" ")),
      }));
    });
    result.axe[scheme] = violations.filter((v) =>
      ["serious", "critical"].includes(v.impact),
    );
  }
  Object.assign(
    result,
    await page.evaluate((pairs) => {
      const references = [];
      for (const [tag, attribute] of pairs) {
        for (const element of document.querySelectorAll(
          `${tag}[${attribute}]`,
        )) {
          references.push({ tag, value: element.getAttribute(attribute) });
        }
      }
      for (const element of document.querySelectorAll("[srcset]")) {
        for (const candidate of element.getAttribute("srcset").split(",")) {
          const value = candidate.trim().split(/\s+/)[0];
          if (value) references.push({ tag: "srcset", value });
        }
      }
      const ids = [...document.querySelectorAll("[id]")].map((e) => e.id);
      const names = [...document.querySelectorAll("a[name]")].map((e) =>
        e.getAttribute("name"),
      );
      return { references, ids: [...ids, ...names] };
    }, LINK_ATTRIBUTES),
  );
  return result;
}

function brokenLinks(root, origin, pageUrl, references, idsOf) {
  const problems = [];
  const seen = new Set();
  for (const { tag, value } of references) {
    const raw = value.trim();
    if (raw === "" || raw === "#" || NOT_CHECKED.test(raw)) continue;
    let target;
    try {
      target = new URL(raw, pageUrl);
    } catch {
      problems.push(`malformed link "${raw}" (<${tag}>)`);
      continue;
    }
    if (target.origin !== origin || seen.has(raw)) continue;
    seen.add(raw);
    const file = fileFor(root, target.pathname);
    if (file === null) {
      problems.push(`broken link "${raw}" (<${tag}>): no such file`);
      continue;
    }
    if (target.hash.length <= 1) continue;
    let anchor = target.hash.slice(1);
    try {
      anchor = decodeURIComponent(anchor);
    } catch {
      // keep it as written
    }
    const relative = path.relative(root, file).split(path.sep).join("/");
    const ids = idsOf(relative);
    if (ids === null) continue; // an anchor into a non-HTML file
    if (!ids.has(anchor)) {
      problems.push(
        `broken link "${raw}" (<${tag}>): ${relative} has no element ` +
          `with id "${anchor}"`,
      );
    }
  }
  return problems;
}

async function runLighthouse(lighthouse, browser, url) {
  const page = await browser.newPage();
  try {
    const result = await lighthouse(
      url,
      {
        output: "json",
        logLevel: "error",
        onlyCategories: ["performance", "accessibility"],
      },
      undefined,
      page,
    );
    const lhr = result.lhr;
    const failed = Object.values(lhr.audits)
      .filter(
        (audit) =>
          audit.score !== null &&
          audit.score < 1 &&
          audit.scoreDisplayMode === "binary",
      )
      .map((audit) => audit.id);
    const requests =
      lhr.audits["network-requests"]?.details?.items?.map((i) => i.url) ?? [];
    return {
      performance: lhr.categories.performance.score,
      accessibility: lhr.categories.accessibility.score,
      formFactor: lhr.configSettings.formFactor,
      runtimeError: lhr.runtimeError?.message,
      failedAudits: failed,
      requests,
    };
  } finally {
    await page.close().catch(() => {});
  }
}

// ------------------------------------------------------------- report

function score(value) {
  return typeof value === "number" ? value.toFixed(2) : "-";
}

function table(rows) {
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.map((row) => String(row[column]).length)),
  );
  return rows
    .map((row, index) => {
      const line = row
        .map((cell, column) => String(cell).padEnd(widths[column]))
        .join("  ")
        .trimEnd();
      return index === 0
        ? `${line}\n${widths.map((w) => "-".repeat(w)).join("  ")}`
        : line;
    })
    .join("\n");
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
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitecheck-"));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir,
    // puppeteer passes --headless itself (with headless: true).
    args: CHROMIUM_FLAGS.filter((flag) => flag !== "--headless"),
  });
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
      if (visited.status >= 400 && page !== "404.html") {
        problem(page, `HTTP ${visited.status}`);
      }
      for (const [scheme, violations] of Object.entries(visited.axe)) {
        for (const v of violations) {
          const where = v.targets.slice(0, 3).join(", ");
          problem(
            page,
            `axe ${v.impact} ${v.id} (${scheme} scheme): ${v.help} ` +
              `[${where}${v.targets.length > 3 ? ", ..." : ""}]`,
          );
        }
      }
      if (run("hosts")) {
        for (const url of new Set(visited.otherHosts)) {
          problem(page, `requests another host while loading: ${url}`);
        }
      }
      for (const error of new Set(visited.errors)) {
        problem(page, `JavaScript error in the console: ${error}`);
      }
    }
    const idsOf = (relative) => {
      if (!relative.endsWith(".html")) return null;
      if (!visits.has(relative)) {
        const html = fs.readFileSync(path.join(root, relative), "utf8");
        const ids = [...html.matchAll(/\s(?:id|name)=["']?([^"'\s>]+)/g)];
        visits.set(relative, { ids: ids.map((m) => m[1]) });
      }
      const entry = visits.get(relative);
      entry.idSet ??= new Set(entry.ids);
      return entry.idSet;
    };
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
        const lh = await runLighthouse(lighthouse, browser, `${origin}/${page}`);
        row.performance = score(lh.performance);
        row.accessibility = score(lh.accessibility);
        if (lh.runtimeError) problem(page, `Lighthouse: ${lh.runtimeError}`);
        if (lh.formFactor !== "mobile") {
          problem(page, `Lighthouse ran as ${lh.formFactor}, not mobile`);
        }
        if (!(lh.performance >= options.minPerformance)) {
          problem(
            page,
            `Lighthouse performance ${score(lh.performance)} is below ` +
              `${options.minPerformance}`,
          );
        }
        if (!(lh.accessibility >= options.minAccessibility)) {
          problem(
            page,
            `Lighthouse accessibility ${score(lh.accessibility)} is below ` +
              `${options.minAccessibility} (failed audits: ` +
              `${lh.failedAudits.join(", ") || "none binary"})`,
          );
        }
        if (run("hosts")) {
          for (const url of lh.requests) {
            const target = new URL(url);
            if (/^https?:$/.test(target.protocol) && target.origin !== origin)
              problem(page, `Lighthouse saw a request to ${url}`);
          }
        }
      }
      rows.push(row);
    }
  } finally {
    await browser.close().catch(() => {});
    server.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  console.log("");
  console.log(
    "Lighthouse: mobile profile, simulated throttling; axe: serious and " +
      "critical violations; links: broken links and anchors; hosts: other " +
      "hosts requested",
  );
  console.log("");
  console.log(
    table([
      ["page", "performance", "accessibility", "axe light", "axe dark",
        "links", "hosts"],
      ...rows.map((r) => [r.page, r.performance, r.accessibility,
        r.axeLight, r.axeDark, r.links, r.hosts]),
    ]),
  );
  console.log("");
  const skipped = [...options.skip].join(", ");
  if (problems.length) {
    console.log(`FAILED: ${problems.length} problem(s):`);
    const order = (p) => pages.indexOf(p.page);
    problems.sort((a, b) => order(a) - order(b));
    for (const { page, text } of problems) console.log(`  ${page}: ${text}`);
    if (skipped) console.log(`(skipped: ${skipped})`);
    process.exitCode = 1;
  } else {
    console.log(
      `site check passed: ${pages.length} pages` +
        (skipped ? ` (skipped: ${skipped})` : ""),
    );
  }
}

main().catch((error) => {
  console.error(`check_site: ${error.stack || error}`);
  process.exit(2);
});
