// Render TeX to HTML with the site's own KaTeX, at build time.
//
// tools/site/postrender.py sends a JSON array of [tex, displayMode] pairs on
// stdin and reads a JSON array of HTML strings from stdout. The options are
// those of Quarto's in-page script (throwOnError false: a bad formula shows
// in red instead of failing the page).
const katex = require("./katex/katex.min.js");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const rendered = JSON.parse(input).map(([tex, displayMode]) =>
    katex.renderToString(tex, { displayMode, throwOnError: false }),
  );
  process.stdout.write(JSON.stringify(rendered));
});
