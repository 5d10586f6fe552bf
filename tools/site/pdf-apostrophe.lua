-- A possessive keeps its apostrophe in the PDF (used by the typst format
-- in _quarto.yml): after a citation, "Xiong et al. (2020)’s claim", and
-- after a digit, "query 3’s scores", "PyTorch 2.13’s counter".
--
-- Pandoc's typst writer prints the apostrophe as a plain ', and Typst's
-- smart quotes read a ' after the citation's closing bracket as an
-- opening quote (‘s), and one after a digit as a prime (3′s). A word
-- holding one is written by that writer without its smart extension,
-- which keeps ’ as it is.
function Str(str)
  if str.text:find("’") then
    local doc = pandoc.Pandoc({ pandoc.Plain({ str }) })
    local typst = pandoc.write(doc, "typst-smart"):gsub("\n$", "")
    return pandoc.RawInline("typst", typst)
  end
end
