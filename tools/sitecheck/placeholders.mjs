// What moves a page under its reader: a block the browser lays out only
// when it comes near the screen (content-visibility: auto: code, display
// equations, paragraphs; tools/site/book.scss) stands in until then at a
// guessed height (contain-intrinsic-block-size). A wrong guess on the
// first screen moves the page as it appears (a layout shift: the landing
// page's subtitle, guessed 4 rows too tall, jumped); one further down
// makes the page's length, and its scrollbar, jump as the reader scrolls.

// Rows a guess may be out: on the first screen, and elsewhere (where it
// may also be out by a sixth of the block's height, as long paragraphs
// are when a screen's rows hold a few more characters than counted).
const FIRST_SCREEN_ROWS = 1;
const ROWS = 2;
const SHARE = 1 / 6;
const NAMED = 3; // blocks named for each kind of problem; the rest counted

// The problems of the page open in `page`, at the width it is shown at
// (`view`, as it is named in a problem: "phone", "desktop").
export async function placeholderProblems(page, view) {
  const blocks = await page.evaluate(guessedHeights);
  const found = { first: [], later: [] };
  for (const block of blocks) {
    const rows = Math.abs(block.height - block.guess) / block.row;
    if (block.firstScreen && rows > FIRST_SCREEN_ROWS) {
      found.first.push(block);
    } else if (rows > ROWS && rows * block.row > block.height * SHARE) {
      found.later.push(block);
    }
  }
  const where = {
    first: `on a ${view} the first screen moves as it appears:`,
    later: `on a ${view} the page's length jumps as it is scrolled:`,
  };
  const problems = [];
  for (const [kind, list] of Object.entries(found)) {
    for (const block of list.slice(0, NAMED)) {
      problems.push(
        `${where[kind]} ${JSON.stringify(block.text)} is laid out only ` +
          `near the screen and stands in at ${Math.round(block.guess)} px ` +
          `for its ${Math.round(block.height)} px`,
      );
    }
    if (list.length > NAMED) {
      problems.push(`${where[kind]} ${list.length - NAMED} more such blocks`);
    }
  }
  return problems;
}

// In the page: each block it may skip laying out and shows (not one in a
// closed <details>, nor one inside another such block, which is laid out
// with it), with the height it stands in at, the height it takes once
// laid out, the height of its rows, and whether it begins on the first
// screen.
async function guessedHeights() {
  const frames = () =>
    new Promise((resolve) =>
      requestAnimationFrame(() => requestAnimationFrame(resolve)),
    );
  const skippable = new Set(
    [...document.body.querySelectorAll("*")].filter(
      (element) =>
        getComputedStyle(element).contentVisibility === "auto" &&
        element.checkVisibility(),
    ),
  );
  const outermost = [...skippable].filter((element) => {
    for (let up = element.parentElement; up; up = up.parentElement) {
      if (skippable.has(up)) return false;
    }
    return true;
  });
  const blocks = outermost.map((element) => {
    const own = getComputedStyle(element);
    const guess = /auto ([\d.]+)px/.exec(own.containIntrinsicBlockSize);
    // The guess is of its content; its box adds padding and borders.
    const edges = [
      own.paddingTop,
      own.paddingBottom,
      own.borderTopWidth,
      own.borderBottomWidth,
    ].reduce((sum, width) => sum + parseFloat(width), 0);
    const text = element.querySelector("code") ?? element;
    const style = getComputedStyle(text);
    const row =
      parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize);
    const top = element.getBoundingClientRect().top;
    return {
      element,
      guess: (guess ? Number(guess[1]) : 0) + edges,
      row,
      firstScreen: top >= 0 && top < innerHeight,
    };
  });
  // Once on the screen a block is laid out, and keeps the height it took
  // there (the `auto` of its contain-intrinsic-block-size).
  for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight) {
    scrollTo(0, y);
    await frames();
  }
  scrollTo(0, 0);
  return blocks.map(({ element, guess, row, firstScreen }) => ({
    text: element.textContent.trim().replace(/\s+/g, " ").slice(0, 40),
    guess,
    height: element.getBoundingClientRect().height,
    row,
    firstScreen,
  }));
}
