-- An exercise's kind line ("Compute · 15 min") stays on the page of the
-- text it introduces (used by the typst format in _quarto.yml). It could
-- end a page together with the exercise's title, the exercise's text
-- starting on the next one; a sticky block moves with the block after it.
local KIND = "^%a+ · "

function Para(para)
  local content = para.content
  if #content ~= 1 or content[1].t ~= "Emph"
      or not pandoc.utils.stringify(content[1]):match(KIND) then
    return nil
  end
  -- Inside the paragraph: a raw block before the exercise's first
  -- paragraph made Pandoc put an empty one (~) above it, a line too high.
  content:insert(1, pandoc.RawInline("typst", "#block(sticky: true)["))
  content:insert(pandoc.RawInline("typst", "]"))
  return para
end
