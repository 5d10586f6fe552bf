// The site's files: its HTML pages, and the file a URL path names.

import fs from "node:fs";
import path from "node:path";

export function htmlPages(root) {
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

// The folder the site is published under (site-url in _quarto.yml), as
// Quarto writes it into 404.html, whose links must work from any folder:
// "/transformer-block/"; "/" when there is none.
const sitePaths = new Map();
export function sitePath(root) {
  if (!sitePaths.has(root)) {
    let found = "/";
    try {
      const page = fs.readFileSync(path.join(root, "404.html"), "utf8");
      const meta = /<meta name="quarto:offset" content="(\/[^"]*)"/.exec(page);
      if (meta) found = meta[1];
    } catch {
      // no 404 page: the site is served from the root alone
    }
    sitePaths.set(root, found);
  }
  return sitePaths.get(root);
}

// A file of the site for a URL path, as GitHub Pages maps them: from the
// root, and from the folder the site is published under.
export function fileFor(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const published = sitePath(root);
  if (published !== "/" && decoded.startsWith(published)) {
    decoded = "/" + decoded.slice(published.length);
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
