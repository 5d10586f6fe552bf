-- A possessive after a citation keeps its apostrophe in the PDF (used by
-- the typst format in _quarto.yml): "Xiong et al. (2020)’s claim".
--
-- Pandoc's typst writer prints the apostrophe as a plain ', and Typst's
-- smart quotes read a ' after the citation's closing bracket as an
-- opening quote: ‘s. Written as Typst source, ’ stays as it is.
local APOSTROPHE = "’"

-- The text after a leading apostrophe (either form), or nil.
local function after_apostrophe(text)
  for _, mark in ipairs({ "'", APOSTROPHE }) do
    if text:sub(1, #mark) == mark then
      return text:sub(#mark + 1)
    end
  end
  return nil
end

function Inlines(inlines)
  local result = pandoc.Inlines({})
  for i, inline in ipairs(inlines) do
    local previous = inlines[i - 1]
    local rest = inline.t == "Str" and after_apostrophe(inline.text)
    if rest and previous and previous.t == "Cite" then
      result:insert(pandoc.RawInline("typst", APOSTROPHE))
      if rest ~= "" then
        result:insert(pandoc.Str(rest))
      end
    else
      result:insert(inline)
    end
  end
  return result
end
