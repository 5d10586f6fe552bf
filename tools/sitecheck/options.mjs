// The site check's command line: its options, and the usage error that
// stops it (exit 2, it cannot run).

import fs from "node:fs";

export const CHECKS = ["links", "axe", "layout", "lighthouse", "hosts"];

export function usage(message) {
  console.error(`check_site: ${message}`);
  console.error(
    "usage: node tools/sitecheck/check_site.mjs [--skip LIST] " +
      "[--only PAGE] [--min-performance N] [--min-accessibility N] " +
      "[--serve] [SITE]",
  );
  process.exit(2);
}

export function parseArguments(argv) {
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
      // The help is the entry point's header comment, its documentation:
      // the comment lines after the #! line, up to the first other line.
      const entry = new URL("check_site.mjs", import.meta.url);
      const lines = fs.readFileSync(entry, "utf8").split("\n").slice(1);
      const end = lines.findIndex((line) => !line.startsWith("//"));
      console.log(lines.slice(0, end).map((l) => l.replace(/^\/\/ ?/, ""))
        .join("\n"));
      process.exit(0);
    } else if (argument.startsWith("-")) usage(`unknown option ${argument}`);
    else options.site = argument;
  }
  return options;
}
