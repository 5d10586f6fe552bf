-- The PDF's reference list reads as the website's: each entry with a
-- hanging indent and some space before the next (used by the typst
-- format in _quarto.yml). Pandoc's citeproc sets the entries as blocks
-- one under the other, inside the `refs` div, which Typst receives as a
-- block: a set rule at its start applies to the entries alone.
local RULES = "#set par(hanging-indent: 1.5em, justify: false)\n"
  .. "#set block(spacing: 0.9em)"

function Div(div)
  if div.identifier ~= "refs" then
    return nil
  end
  div.content:insert(1, pandoc.RawBlock("typst", RULES))
  return div
end
