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

// A file of the site for a URL path, as GitHub Pages maps them.
export function fileFor(root, urlPath) {
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
