// The explorers' fields that hold no usable number, in words.
//
// An Observable Inputs form keeps its last valid value while one of its
// fields is empty or out of range, so an explorer would go on showing
// results for a number no longer on the screen. Each explorer shows the
// sentences of fieldProblems instead of its results until they are gone.

const count = (text) => Number(text).toLocaleString("en-GB");

// What one field needs, "width D needs a whole number from 1 to 16,384",
// with the field's label as the page shows it (D<sub>ff</sub> included).
function needs(input) {
  const kind = input.step === "1" ? "a whole number" : "a number";
  const range =
    input.min !== "" && input.max !== ""
      ? ` from ${count(input.min)} to ${count(input.max)}`
      : "";
  const label = input.labels?.[0];
  const sentence = document.createElement("span");
  sentence.append(
    ...(label ? label.cloneNode(true).childNodes : ["a field"]),
    ` needs ${kind}${range}`,
  );
  return sentence;
}

// One sentence (a span) for each field of the forms (views) whose text is
// no number the field accepts; none when every field holds one.
export function fieldProblems(...forms) {
  return forms
    .flatMap((form) => [...form.querySelectorAll("input")])
    .filter((input) => !input.checkValidity())
    .map(needs);
}

// The sentences as one list for a paragraph: "a; b; c".
export function joined(sentences) {
  return sentences.flatMap((sentence, i) => (i ? ["; ", sentence] : sentence));
}
