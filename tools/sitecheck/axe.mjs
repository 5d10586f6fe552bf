// axe-core on a page in the browser, and its violations as problems.

// axe-core's serious and critical violations on the page as it is now
// (axeSource: axe.min.js, which the page is given to run).
//
// axe leaves the contrast of text of one or two characters undecided
// ("too short to determine if it is actual text"), such as a quiz's
// answer buttons "a" to "d"; it still measures it where it knows both
// colours. Below the ratio it expects, such text counts as a
// color-contrast violation here.
export async function axeViolations(page, axeSource) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const run = await window.axe.run(document, {
      resultTypes: ["violations", "incomplete"],
    });
    const found = run.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((node) => node.target.join(" ")),
    }));
    const faint = (node) =>
      node.any.some(
        ({ data }) =>
          data &&
          data.messageKey === "shortTextContent" &&
          // Measured: both colours known (a ratio of 0 means it was not).
          data.fgColor &&
          data.bgColor &&
          data.contrastRatio < parseFloat(data.expectedContrastRatio),
      );
    for (const v of run.incomplete) {
      const nodes = v.id === "color-contrast" ? v.nodes.filter(faint) : [];
      if (!nodes.length) continue;
      found.push({
        id: "color-contrast",
        impact: "serious",
        help: "Short text must have sufficient color contrast",
        targets: nodes.map((node) => node.target.join(" ")),
      });
    }
    return found;
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
