// Links and anchors: what a page links to and which ids it has, and the
// links that lead to no file of the site or to no element of their page.

import fs from "node:fs";
import path from "node:path";

import { fileFor } from "./site.mjs";

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

// A loaded page's references (each tag and attribute value, srcset's
// candidates too) and its ids (with a[name]s, which anchors also reach).
export function pageLinks(page) {
  return page.evaluate((pairs) => {
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
  }, LINK_ATTRIBUTES);
}

// The ids of a page of the site by its path inside SITE, for its
// #anchors: a visited page's from the browser (visits), another's from
// its HTML; null for a file that is not HTML.
export function idsOfPages(root, visits) {
  return (relative) => {
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
}

// The problems with a page's references: malformed, leading to no file
// of the site, or to an id its page lacks (another host's are not looked
// at here: loading them is the hosts check's problem).
export function brokenLinks(root, origin, pageUrl, references, idsOf) {
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
