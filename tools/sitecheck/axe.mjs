// axe-core on a page in the browser, and its violations as problems.

// axe-core's serious and critical violations on the page as it is now
// (axeSource: axe.min.js, which the page is given to run).
export async function axeViolations(page, axeSource) {
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
  return violations.filter((v) => ["serious", "critical"].includes(v.impact));
}

// A violation's problem line: where it is, by its first three targets.
export function axeProblem(scheme, v) {
  const where = v.targets.slice(0, 3).join(", ");
  return (
    `axe ${v.impact} ${v.id} (${scheme} scheme): ${v.help} ` +
    `[${where}${v.targets.length > 3 ? ", ..." : ""}]`
  );
}
