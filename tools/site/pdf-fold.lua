-- The PDF prints no folded code (used by the typst format in _quarto.yml).
--
-- On the website a cell with `code-fold: true` shows only its summary
-- line until a reader opens it: the figure style, figure code and the
-- self-checks' machinery. On paper nothing can be opened, so each such
-- cell's code becomes one line naming it and where to read it; its output
-- (a figure, a printed result) stays.
function CodeBlock(block)
  local fold = block.attributes["code-fold"] or "none"
  if not block.classes:includes("cell-code") or fold == "false"
      or fold == "none" then
    return nil
  end
  local text = "Code folded on the website; it is in the chapter's notebook."
  local summary = block.attributes["code-summary"]
  if summary == nil then
    return pandoc.Para({ pandoc.Emph(text) })
  end
  return pandoc.Para({ pandoc.Emph(summary .. "."), pandoc.Space(), text })
end
