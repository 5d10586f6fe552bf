// Serving the site: to the browser, and with --serve to anyone.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";

import { fileFor } from "./site.mjs";

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

// Static server with gzip for text types, like GitHub Pages.
export function serve(root) {
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
