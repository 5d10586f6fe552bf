// The report: the table of results and the list of problems.

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

// Print the table (a row per page) and the problems, by page in the
// table's order; true if there is any problem.
export function printReport(rows, problems, pages, skip) {
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
  const skipped = [...skip].join(", ");
  if (problems.length) {
    console.log(`FAILED: ${problems.length} problem(s):`);
    const order = (p) => pages.indexOf(p.page);
    problems.sort((a, b) => order(a) - order(b));
    for (const { page, text } of problems) console.log(`  ${page}: ${text}`);
    if (skipped) console.log(`(skipped: ${skipped})`);
    return true;
  }
  console.log(
    `site check passed: ${pages.length} pages` +
      (skipped ? ` (skipped: ${skipped})` : ""),
  );
  return false;
}
