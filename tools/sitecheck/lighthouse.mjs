// Lighthouse on a page: its scores, and its problems against the floors.

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

function score(value) {
  return typeof value === "number" ? value.toFixed(2) : "-";
}

// Lighthouse's scores for the table, and the problems with the page: a
// score below its floor, a run that failed or was not the mobile profile,
// and (with the hosts check) any request it saw to another host.
export async function lighthouseCheck(
  lighthouse,
  browser,
  origin,
  page,
  { minPerformance, minAccessibility, hosts },
) {
  const problems = [];
  const lh = await runLighthouse(lighthouse, browser, `${origin}/${page}`);
  if (lh.runtimeError) problems.push(`Lighthouse: ${lh.runtimeError}`);
  if (lh.formFactor !== "mobile") {
    problems.push(`Lighthouse ran as ${lh.formFactor}, not mobile`);
  }
  if (!(lh.performance >= minPerformance)) {
    problems.push(
      `Lighthouse performance ${score(lh.performance)} is below ` +
        `${minPerformance}`,
    );
  }
  if (!(lh.accessibility >= minAccessibility)) {
    problems.push(
      `Lighthouse accessibility ${score(lh.accessibility)} is below ` +
        `${minAccessibility} (failed audits: ` +
        `${lh.failedAudits.join(", ") || "none binary"})`,
    );
  }
  if (hosts) {
    for (const url of lh.requests) {
      const target = new URL(url);
      if (/^https?:$/.test(target.protocol) && target.origin !== origin)
        problems.push(`Lighthouse saw a request to ${url}`);
    }
  }
  return {
    performance: score(lh.performance),
    accessibility: score(lh.accessibility),
    problems,
  };
}
