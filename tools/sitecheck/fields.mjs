// An explorer that goes on showing its last result once the number it was
// computed from is gone from the screen.
//
// An Observable Inputs form keeps its last valid value while a field is
// empty, so an explorer that only follows the form's value shows results
// for a number the reader no longer sees. For each form of number fields
// on the page (an explorer's inputs), its first field is cleared as a
// reader would clear it: what the page says must change. The field is
// then given its value back.

const SETTLE_MS = 200; // for the explorer to redraw

// In the page: one sentence for each form whose cleared field changed
// nothing the page shows.
async function unchangedWhenCleared(settle) {
  const wait = () => new Promise((resolve) => setTimeout(resolve, settle));
  const type = async (input, text) => {
    input.value = text;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await wait();
  };
  const forms = [...document.querySelectorAll("form")].filter(
    (form) =>
      !form.parentElement?.closest("form") &&
      form.querySelector('input[type="number"]'),
  );
  const problems = [];
  for (const form of forms) {
    const input = form.querySelector('input[type="number"]');
    const name = input.labels?.[0]?.textContent.trim() || input.name;
    const value = input.value;
    const before = document.body.innerText;
    await type(input, "");
    if (document.body.innerText === before) {
      problems.push(
        `clearing the field "${name}" changes nothing on the page: its ` +
          `results still show those for ${value}`,
      );
    }
    await type(input, value);
  }
  return problems;
}

export async function staleFieldProblems(page) {
  return page.evaluate(unchangedWhenCleared, SETTLE_MS);
}
