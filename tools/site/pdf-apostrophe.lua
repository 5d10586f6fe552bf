-- A possessive keeps its apostrophe in the PDF (used by the typst format
-- in _quarto.yml): after a citation, "Xiong et al. (2020)’s claim", and
-- after a digit, "query 3’s scores", "PyTorch 2.13’s counter".
--
-- Pandoc's typst writer prints the apostrophe as a plain ', and Typst's
-- smart quotes read a ' after the citation's closing bracket as an
-- opening quote (‘s), and one after a digit as a prime (3′s). Written as
-- Typst source, ’ stays as it is.
local APOSTROPHE = pandoc.RawInline("typst", "’")

-- text as inlines, each apostrophe after a digit (or, after a citation,
-- at the start) written as Typst source: marked with a NUL byte, which
-- no text holds, then split there.
local function possessives(text, after_cite)
  text = text:gsub("(%d)'", "%1\0"):gsub("(%d)’", "%1\0")
  if after_cite then
    text = text:gsub("^'", "\0"):gsub("^’", "\0")
  end
  local parts = pandoc.Inlines({})
  local start = 1
  for at in text:gmatch("()\0") do
    if at > start then
      parts:insert(pandoc.Str(text:sub(start, at - 1)))
    end
    parts:insert(APOSTROPHE)
    start = at + 1
  end
  if start <= #text then
    parts:insert(pandoc.Str(text:sub(start)))
  end
  return parts
end

function Inlines(inlines)
  local result = pandoc.Inlines({})
  for i, inline in ipairs(inlines) do
    if inline.t == "Str" then
      local previous = inlines[i - 1]
      local after_cite = previous ~= nil and previous.t == "Cite"
      result:extend(possessives(inline.text, after_cite))
    else
      result:insert(inline)
    end
  end
  return result
end
