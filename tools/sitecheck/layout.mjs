// What a reader would have to scroll sideways to read: a page, its
// chapters' menu or an equation wider than a phone's screen, and a
// printed output wider than a desktop's column; and code hidden behind a
// copy button. At both
// widths, too, what moves the page under its reader (placeholders.mjs).

import { placeholderProblems } from "./placeholders.mjs";

export const PHONE = {
  width: 412,
  height: 915,
  isMobile: true,
  hasTouch: true,
};
const DESKTOP = { width: 1366, height: 900 };

// A page's layout problems at both widths, in a tab of its own.
export async function layoutProblems(browser, url) {
  const page = await browser.newPage();
  const problems = [];
  try {
    for (const [name, view, check] of [
      ["phone", PHONE, phoneProblems],
      ["desktop", DESKTOP, desktopProblems],
    ]) {
      await page.setViewport(view);
      await page.goto(url, { waitUntil: "load", timeout: 60000 });
      problems.push(...(await page.evaluate(check, view.width)));
      // Afresh: the phone's check opened a menu.
      await page.goto(url, { waitUntil: "load", timeout: 60000 });
      problems.push(...(await placeholderProblems(page, name)));
    }
  } finally {
    await page.close().catch(() => {});
  }
  return problems;
}

// In the page, on a phone's screen of width px: the page and every menu
// shown, once Quarto's chapters' menu (the button beside the page's
// title) is open. (A phone widens its layout to a page wider than its
// screen, so innerWidth would grow with the page.)
async function phoneProblems(width) {
  const problems = [];
  const page = document.documentElement;
  if (page.scrollWidth > width + 1) {
    problems.push(
      `on a phone the page is ${page.scrollWidth} px wide, ` +
        `wider than the screen (${width} px)`,
    );
  }
  // A copy button over a code block whose lines run beneath it (a phone
  // scrolls them): with a see-through background, line and icon read as
  // one jumble. The first such block is named.
  for (const button of document.querySelectorAll(".code-copy-button")) {
    const code = button.parentElement?.querySelector("pre");
    if (!code || button.getClientRects().length === 0) continue;
    const style = getComputedStyle(button);
    const seeThrough =
      style.backgroundImage === "none" &&
      /^rgba\(.*, 0\)$|^transparent$/.test(style.backgroundColor);
    const lineEnd = code.getBoundingClientRect().left + code.scrollWidth;
    if (seeThrough && lineEnd > button.getBoundingClientRect().left) {
      const text = JSON.stringify(code.textContent.trim().slice(0, 40));
      problems.push(
        `on a phone code runs beneath a see-through copy button: ${text}`,
      );
      break;
    }
  }
  // A displayed equation that scrolls sideways hides its end and its
  // number from a reader who does not know to swipe; every equation of
  // the book fits a phone (on several lines where need be).
  for (const equation of document.querySelectorAll(".katex-display")) {
    equation.style.contentVisibility = "visible"; // measured, not guessed
    if (equation.scrollWidth > equation.clientWidth + 1) {
      const tex = equation.querySelector("annotation")?.textContent ?? "";
      problems.push(
        `on a phone an equation scrolls sideways: ` +
          JSON.stringify(tex.trim().replace(/\s+/g, " ").slice(0, 40)),
      );
    }
  }
  document.querySelector(".quarto-btn-toggle")?.click();
  await new Promise((resolve) => setTimeout(resolve, 500)); // it slides open
  for (const menu of document.querySelectorAll("nav")) {
    if (menu.getClientRects().length === 0) continue; // not shown
    // A menu as wide as its longest line may be clipped by the page
    // rather than widen it: what counts is where its content ends.
    const box = menu.getBoundingClientRect();
    const end = Math.max(box.right, box.left + menu.scrollWidth);
    if (end > width + 1) {
      const name = menu.id || menu.getAttribute("aria-label") || "nav";
      problems.push(
        `on a phone the menu ${name} runs ${Math.round(end - width)} px ` +
          "past the right edge of the screen",
      );
    }
  }
  return problems;
}

// In the page, on a desktop: printed outputs (Quarto's cell outputs)
// that scroll sideways.
function desktopProblems() {
  const wide = [...document.querySelectorAll(".cell-output pre")].filter(
    (output) => output.scrollWidth > output.clientWidth + 1,
  );
  return wide.map(
    (output) =>
      "on a desktop a printed output scrolls sideways: " +
      JSON.stringify(output.textContent.trim().slice(0, 50)),
  );
}
