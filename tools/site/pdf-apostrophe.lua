-- A possessive keeps its apostrophe in the PDF (used by the typst format
-- in _quarto.yml): after a citation, "Xiong et al. (2020)’s claim", and
-- after a digit, "query 3’s scores", "PyTorch 2.13’s counter".
--
-- Pandoc's typst writer prints the apostrophe as a plain ', and Typst's
-- smart quotes read a ' after the citation's closing bracket as an
-- opening quote (‘s), and one after a digit as a prime (3′s). Written as
-- Typst source, ’ stays as it is.
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

-- text as inlines, each apostrophe after a digit written as Typst source.
local function after_digits(text)
  local parts = pandoc.Inlines({})
  local start = 1
  while true do
    local found, stop = nil, nil
    for _, candidate in ipairs({ "'", APOSTROPHE }) do
      local at = text:find("%d" .. candidate, start)
      if at and (found == nil or at < found) then
        found, stop = at, at + #candidate
      end
    end
    if not found then
      break
    end
    parts:insert(pandoc.Str(text:sub(start, found)))
    parts:insert(pandoc.RawInline("typst", APOSTROPHE))
    start = stop + 1
  end
  if start <= #text then
    parts:insert(pandoc.Str(text:sub(start)))
  end
  return parts
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
    elseif inline.t == "Str" then
      result:extend(after_digits(inline.text))
    else
      result:insert(inline)
    end
  end
  return result
end
