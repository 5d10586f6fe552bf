-- An operator's name sits against its bracket in the PDF (used by the
-- typst format in _quarto.yml): "GELU(x)", not "GELU (x)".
--
-- Pandoc's typst writer turns \operatorname{GELU} into the text "GELU",
-- which Typst spaces apart from the bracket after it, and \mathrm{GELU}
-- into upright letters, which it does not. The website's KaTeX keeps the
-- chapter's \operatorname.
function Math(math)
  math.text = math.text:gsub("\\operatorname%s*{", "\\mathrm{")
  return math
end
