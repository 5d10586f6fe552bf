#!/usr/bin/env node
// The book's own checks of its pages in Chromium (run by check.sh):
//
//   node tools/sitecheck/book_checks.mjs BASE PAGE...   (BASE: a served site)
//
// Prints "PAGE: problem" for each problem; exits 1 on any. Tried first:
// @axe-core/cli runs axe on the page as loaded, in a window capped at the
// screen: it cannot scroll, so the explorers (loaded near the screen) are
// never there. @axe-core/puppeteer needs the full puppeteer, which
// downloads a browser. No tool knows the explorers, the dark figures or
// the stand-in heights.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import puppeteer from "puppeteer-core";

const [base, ...pages] = process.argv.slice(2);
const origin = new URL(base).origin;
const TIMEOUT = 1000 * Number(process.env.SITECHECK_TIMEOUT || 60);
const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);
const PHONE = { width: 412, height: 915, isMobile: true, hasTouch: true };
const DESKTOP = { width: 1366, height: 900 };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// In the page (puppeteer sends each checking function's source alone).
const HELPERS = `
  window.tbFrames = () => new Promise((r) =>
    requestAnimationFrame(() => requestAnimationFrame(r)));
  window.tbScroll = async (step) => {
    for (let y = 0; y < document.documentElement.scrollHeight; y += step) {
      scrollTo(0, y);
      await tbFrames();
    }
    scrollTo(0, 0);
    await tbFrames();
  };
  window.tbText = (element, length) => JSON.stringify(
    element.textContent.trim().replace(/\\s+/g, " ").slice(0, length));
  window.tbType = async (input, text) => {
    input.value = text;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((r) => setTimeout(r, 200));
  };`;

// axe-core's serious and critical violations. Text of one or two
// characters (a quiz's answer buttons) axe leaves "incomplete" even where
// it measured both colours: below the ratio, it counts here.
async function axeViolations() {
  const run = await window.axe.run(document, {
    resultTypes: ["violations", "incomplete"],
  });
  const faint = ({ any }) => any.some(({ data: d }) =>
    d?.messageKey === "shortTextContent" && d.fgColor && d.bgColor &&
    d.contrastRatio < parseFloat(d.expectedContrastRatio));
  const shortText = run.incomplete
    .filter((v) => v.id === "color-contrast")
    .map((v) => ({ ...v, impact: "serious", help: "Short text must have " +
      "sufficient color contrast", nodes: v.nodes.filter(faint) }));
  return [...run.violations, ...shortText]
    .filter((v) => v.nodes.length && ["serious", "critical"].includes(v.impact))
    .map((v) => `axe ${v.impact} ${v.id}: ${v.help} [` +
      v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ") + "]");
}

// In the light scheme: an explorer whose first number field, cleared,
// leaves the page as it was (its results are stale), and a table row
// holding other than cells or out of the head's columns (explorers build
// their tables in the page).
async function lightProblems() {
  const problems = [];
  for (const form of document.querySelectorAll("form")) {
    const input = form.querySelector('input[type="number"]');
    if (!input || form.parentElement?.closest("form")) continue;
    const [value, before] = [input.value, document.body.innerText];
    await tbType(input, "");
    if (document.body.innerText === before) {
      const name = input.labels?.[0]?.textContent.trim() || input.name;
      problems.push(`clearing the field "${name}" changes nothing on the ` +
        `page: its results still show those for ${value}`);
    }
    await tbType(input, value);
  }
  const width = (row) => [...row.cells].reduce((s, c) => s + c.colSpan, 0);
  for (const table of document.querySelectorAll("table")) {
    const head = table.tHead?.rows[0];
    const spans = [...table.querySelectorAll("td, th")]
      .some((c) => c.rowSpan > 1);
    const name = `the table ${tbText(table.caption ?? table, 50)} has a row`;
    for (const row of table.rows) {
      const stray = [...row.children].find((c) => !/^T[DH]$/.test(c.tagName));
      if (stray) {
        problems.push(`${name} holding a <${stray.tagName.toLowerCase()}> ` +
          `among its cells: ${tbText(row, 40)}`);
      } else if (head && !spans && width(row) !== width(head)) {
        problems.push(`${name} of ${width(row)} columns under a head of ` +
          `${width(head)}: ${tbText(row, 40)}`);
      }
    }
  }
  return problems;
}

// In the dark scheme, a figure drawn light (mean lightness above a half,
// transparency as white) and shown uninverted: a white box on the page.
async function darkProblems() {
  const canvas = Object.assign(document.createElement("canvas"),
    { width: 64, height: 64 });
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const problems = [];
  for (const image of document.querySelectorAll("figure img")) {
    await image.decode().catch(() => {});
    if (!image.getClientRects().length || !image.naturalWidth) continue;
    context.fillStyle = "#fff";
    context.fillRect(0, 0, 64, 64);
    context.drawImage(image, 0, 0, 64, 64);
    const px = context.getImageData(0, 0, 64, 64).data;
    let sum = 0;
    for (let i = 0; i < px.length; i += 4) {
      sum += 0.2126 * px[i] + 0.7152 * px[i + 1] + 0.0722 * px[i + 2];
    }
    const light = sum / (px.length / 4) / 255;
    const invert = /invert\(([\d.]+)\)/.exec(getComputedStyle(image).filter);
    if (light > 0.5 && !(invert && Number(invert[1]) >= 0.5)) {
      problems.push(`in the dark scheme the figure ${image.src.split("/")
        .pop()} is shown as drawn, light (mean lightness ${light.toFixed(2)})`);
    }
  }
  return problems;
}

// On a phone (screen width px): what would scroll sideways.
async function phoneProblems(width) {
  const problems = [];
  const page = document.documentElement;
  if (page.scrollWidth > width + 1) {
    problems.push(`on a phone the page is ${page.scrollWidth} px wide, ` +
      `wider than the screen (${width} px)`);
  }
  for (const button of document.querySelectorAll(".code-copy-button")) {
    const code = button.parentElement?.querySelector("pre");
    if (!code || !button.getClientRects().length) continue;
    const style = getComputedStyle(button);
    const seeThrough = style.backgroundImage === "none" &&
      /^rgba\(.*, 0\)$|^transparent$/.test(style.backgroundColor);
    const end = code.getBoundingClientRect().left + code.scrollWidth;
    if (seeThrough && end > button.getBoundingClientRect().left) {
      problems.push("on a phone code runs beneath a see-through copy " +
        `button: ${tbText(code, 40)}`);
      break;
    }
  }
  for (const equation of document.querySelectorAll(".katex-display")) {
    if (equation.scrollWidth > equation.clientWidth + 1) {
      const tex = equation.querySelector("annotation") ?? equation;
      problems.push(`on a phone an equation scrolls sideways: ${tbText(tex,
        40)}`);
    }
  }
  document.querySelector(".quarto-btn-toggle")?.click(); // the chapters' menu
  await new Promise((r) => setTimeout(r, 500));
  for (const menu of document.querySelectorAll("nav")) {
    if (!menu.getClientRects().length) continue;
    const box = menu.getBoundingClientRect();
    const end = Math.max(box.right, box.left + menu.scrollWidth);
    if (end > width + 1) {
      const name = menu.id || menu.getAttribute("aria-label") || "nav";
      problems.push(`on a phone the menu ${name} runs ` +
        `${Math.round(end - width)} px past the right edge of the screen`);
    }
  }
  return problems;
}

// On a desktop: printed outputs that scroll sideways.
function desktopProblems() {
  return [...document.querySelectorAll(".cell-output pre")]
    .filter((output) => output.scrollWidth > output.clientWidth + 1)
    .map((output) => "on a desktop a printed output scrolls sideways: " +
      tbText(output, 50));
}

// Blocks laid out only near the screen (content-visibility: auto) stand in
// at a guessed height (tools/site/dom.py). More than a row out on the first
// screen moves the page as it appears; more than two rows and a sixth out
// further down, its length jumps as it is scrolled. Three are named.
async function standInProblems(view) {
  const skippable = [...document.body.querySelectorAll("*")].filter((e) =>
    getComputedStyle(e).contentVisibility === "auto" && e.checkVisibility());
  const blocks = skippable
    .filter((e) => !skippable.some((o) => o !== e && o.contains(e)))
    .map((element) => {
      const s = getComputedStyle(element);
      const guess = /auto ([\d.]+)px/.exec(s.containIntrinsicBlockSize);
      const edges = [s.paddingTop, s.paddingBottom, s.borderTopWidth,
        s.borderBottomWidth].reduce((sum, w) => sum + parseFloat(w), 0);
      const t = getComputedStyle(element.querySelector("code") ?? element);
      const top = element.getBoundingClientRect().top;
      return { element, guess: (guess ? Number(guess[1]) : 0) + edges,
        row: parseFloat(t.lineHeight) || 1.2 * parseFloat(t.fontSize),
        firstScreen: top >= 0 && top < innerHeight };
    });
  await tbScroll(innerHeight);
  for (const block of blocks) {
    block.height = block.element.getBoundingClientRect().height;
    block.off = Math.abs(block.height - block.guess) / block.row;
    block.moves = block.firstScreen && block.off > 1;
  }
  const kinds = [
    [`on a ${view} the first screen moves as it appears:`,
      blocks.filter((b) => b.moves)],
    [`on a ${view} the page's length jumps as it is scrolled:`,
      blocks.filter((b) => !b.moves && b.off > 2 &&
        b.off * b.row > b.height / 6)],
  ];
  return kinds.flatMap(([where, list]) => [
    ...list.slice(0, 3).map((b) => `${where} ${tbText(b.element, 40)} is ` +
      `laid out only near the screen and stands in at ${Math.round(b.guess)}` +
      ` px for its ${Math.round(b.height)} px`),
    ...(list.length > 3 ? [`${where} ${list.length - 3} more such blocks`]
      : []),
  ]);
}

// The section a link from another page lands on (the middle one).
function middleSection() {
  const level2 = document.querySelectorAll("section.level2[id]");
  const all = level2.length ? level2 : document.querySelectorAll("section[id]");
  return all[Math.floor(all.length / 2)]?.id ?? "";
}
// How far the fixed header covers that section's heading.
function coveredBy(id) {
  const header = [...document.querySelectorAll("header, #quarto-header")]
    .filter((h) => ["fixed", "sticky"].includes(getComputedStyle(h).position))
    .map((h) => h.getBoundingClientRect().bottom);
  const section = document.getElementById(id);
  const heading = section.querySelector(":scope > :is(h1, h2, h3, h4, h5)");
  return Math.max(0, ...header) - (heading || section).getBoundingClientRect()
    .top;
}

async function checkPage(tab, url) {
  const problems = [];
  const errors = new Set();
  await tab.evaluateOnNewDocument(HELPERS);
  await tab.setRequestInterception(true);
  tab.on("request", (request) => {
    const target = new URL(request.url());
    if (/^(https?|wss?):$/.test(target.protocol) && target.origin !== origin) {
      errors.add(`requests another host: ${request.url()}`);
      request.abort("blockedbyclient");
    } else request.continue();
  });
  tab.on("pageerror", (e) => errors.add(`JavaScript error: ${e.message}`));
  tab.on("console", (message) => {
    const where = message.location()?.url;
    if (message.type() === "error") {
      errors.add(`JavaScript error in the console: ${message.text()}` +
        (where ? ` (${where})` : ""));
    } else if (message.type() === "warn" && /\bpreload/.test(message.text())) {
      errors.add(`a preload the page does not use: ${message.text()}`);
    }
  });
  const open = (address, waitUntil = "load") =>
    tab.goto(address, { waitUntil, timeout: TIMEOUT });
  const check = async (f, ...args) => problems.push(...await tab.evaluate(f,
    ...args));
  let loaded = 0;
  for (const scheme of ["light", "dark"]) {
    await tab.emulateMediaFeatures([
      { name: "prefers-color-scheme", value: scheme }]);
    await open(url, scheme === "light" ? ["load", "networkidle0"] : "load");
    loaded ||= Date.now();
    await tab.evaluate(() => tbScroll(innerHeight / 2));
    await tab.waitForNetworkIdle({ idleTime: 500, timeout: TIMEOUT });
    await tab.evaluate(axeSource);
    const axe = await tab.evaluate(axeViolations);
    problems.push(...axe.map((v) => `${v} (${scheme} scheme)`));
    if (scheme === "light") {
      await check(lightProblems);
      await sleep(loaded + 3500 - Date.now()); // Chromium's unused preload
    } else await check(darkProblems);
  }
  await tab.emulateMediaFeatures([]);
  for (const [view, size, views] of [["phone", PHONE, phoneProblems],
    ["desktop", DESKTOP, desktopProblems]]) {
    await tab.setViewport(size);
    await open(url);
    await check(standInProblems, view); // first: it needs the first screen
    await check(views, size.width);
  }
  const id = await tab.evaluate(middleSection);
  if (id) {
    await tab.setViewport(PHONE);
    await open("about:blank");
    await open(`${url}#${id}`);
    await sleep(500);
    const covered = await tab.evaluate(coveredBy, id);
    if (covered > 1) {
      problems.push(`on a phone a link to #${id} from another page lands it ` +
        `under the fixed header (${Math.round(covered)} px of it hidden)`);
    }
  }
  return [...problems, ...errors];
}

const launch = () => puppeteer.launch({
  executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
  timeout: 120000, // a cold start reads 300 MB of Chromium from disk
  protocolTimeout: TIMEOUT,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update"],
});
const close = (thing) => Promise.race([thing?.close(), sleep(5000)])
  .catch(() => {});
// Each page in a tab of its own; a page the browser failed on (an error, or
// no answer in 4 SITECHECK_TIMEOUTs) is tried once more, in a new browser.
let browser = await launch();
let failed = false;
for (const page of pages) {
  for (let attempt = 1; attempt <= 2; attempt++) {
    let tab;
    const hung = sleep(4 * TIMEOUT).then(() => {
      throw new Error(`no answer in ${(4 * TIMEOUT) / 1000} s`);
    });
    try {
      const problems = await Promise.race([
        (async () => checkPage((tab = await browser.newPage()), base + page))(),
        hung]);
      for (const text of problems) console.log(`${page}: ${text}`);
      failed ||= problems.length > 0;
      break;
    } catch (error) {
      const message = String(error.message).split("\n")[0];
      if (attempt === 2) {
        console.log(`${page}: the browser failed twice on it: ${message}`);
        failed = true;
      } else {
        console.log(`(${page}: the browser failed: ${message}; once more)`);
        await close(browser);
        browser = await launch();
      }
    } finally {
      await close(tab);
    }
  }
}
await close(browser);
process.exit(failed ? 1 : 0);
