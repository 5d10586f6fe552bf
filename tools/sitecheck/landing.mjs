// Where a link from another page lands on a phone: its target must show
// below the page's fixed header, not under it.
//
// Quarto's scripts keep the header clear of a link followed within a
// page; a link from another page, or a search result, is scrolled to by
// the browser as the page loads. The page is opened at its middle
// section, as such a link opens it, and the top of the section's heading
// is compared with the header's bottom.

import { PHONE } from "./layout.mjs";

const SETTLE_MS = 500; // late layout: fonts, figures, the explorers

// In the page: the id of its middle section, which has enough of the
// page below it to be scrolled to the top (a last one may not).
function middleSection() {
  const chapters = document.querySelectorAll("section.level2[id]");
  const sections = chapters.length
    ? chapters
    : document.querySelectorAll("section[id]");
  const middle = sections[Math.floor(sections.length / 2)];
  return middle ? middle.id : "";
}

// In the page: how far the fixed header covers the top of the section's
// heading, in px (0 when it does not).
function coveredBy(id) {
  const header = [...document.querySelectorAll("header, #quarto-header")]
    .filter((h) => ["fixed", "sticky"].includes(getComputedStyle(h).position))
    .map((h) => h.getBoundingClientRect().bottom);
  // A section's first line is its heading (the section starts higher,
  // with its top margin).
  const section = document.getElementById(id);
  const heading = section.querySelector(":scope > :is(h1, h2, h3, h4, h5)");
  const target = (heading || section).getBoundingClientRect().top;
  return Math.max(0, Math.max(0, ...header) - target);
}

export async function landingProblems(browser, url) {
  const page = await browser.newPage();
  try {
    await page.setViewport(PHONE);
    await page.goto(url, { waitUntil: "load", timeout: 60000 });
    const id = await page.evaluate(middleSection);
    if (!id) return [];
    // From elsewhere: a change of the fragment alone would be a link
    // within the page, which Quarto's scripts handle.
    await page.goto("about:blank");
    await page.goto(`${url}#${id}`, { waitUntil: "load", timeout: 60000 });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const covered = await page.evaluate(coveredBy, id);
    return covered > 1
      ? [
          `on a phone a link to #${id} from another page lands it under ` +
            `the fixed header (${Math.round(covered)} px of it hidden)`,
        ]
      : [];
  } finally {
    await page.close().catch(() => {});
  }
}
