// A table whose cells do not stand in their columns: a row holding
// something other than cells (an explorer's template once wrapped two
// cells in a <span>, and the browser showed the 12 blocks' key-value
// cache under "one block"), or a row spanning more or fewer columns than
// the table's head. Explorers build their tables in the browser, so this
// is checked on the page as shown, once they have loaded.

// In the page: a sentence for each such row.
function misalignedRows() {
  const problems = [];
  const columns = (row) =>
    [...row.cells].reduce((sum, cell) => sum + cell.colSpan, 0);
  const text = (element, length) =>
    JSON.stringify(
      element.textContent.trim().replace(/\s+/g, " ").slice(0, length),
    );
  for (const table of document.querySelectorAll("table")) {
    const name = text(table.caption ?? table, 50);
    const head = table.tHead?.rows[0];
    const spansRows = [...table.querySelectorAll("td, th")].some(
      (cell) => cell.rowSpan > 1,
    );
    for (const row of table.rows) {
      const stray = [...row.children].find(
        (child) => child.tagName !== "TD" && child.tagName !== "TH",
      );
      if (stray) {
        problems.push(
          `the table ${name} has a row holding a ` +
            `<${stray.tagName.toLowerCase()}> among its cells: ` +
            text(row, 40),
        );
      } else if (head && !spansRows && columns(row) !== columns(head)) {
        problems.push(
          `the table ${name} has a row of ${columns(row)} columns under ` +
            `a head of ${columns(head)}: ${text(row, 40)}`,
        );
      }
    }
  }
  return problems;
}

export async function misalignedTableProblems(page) {
  return page.evaluate(misalignedRows);
}
