"""Markup built once at render time, so a page lays itself out fewer times.

postrender.py applies these to every page after each render:

- Heading and figure anchors: AnchorJS (Quarto's hover link beside each
  heading) adds them once the page is parsed, together with a stylesheet
  that declares its icon font; that made the browser lay out the whole
  page again (140 ms on a chapter page, unthrottled). They are written
  into the page here, exactly as AnchorJS writes them, with its
  stylesheet in the head: AnchorJS then finds them and does nothing.
- Code lines: Quarto wraps every line of code in a `<span id="cbN-M">`
  (an inline block, a target for code annotations and line numbers,
  which the book does not use). A code block keeps one such wrapper for
  all its lines (book.scss gives it the same line height): a tenth of a
  chapter page's elements, and the costliest to lay out. A line long
  enough to wrap keeps a wrapper of its own, for a hanging indent.
- Code block sizes: a browser lays out a code block only when it comes
  near the screen (`content-visibility: auto` in book.scss); until then
  the block takes the height of its lines, which are counted here, as a
  wide screen shows them and as narrower screens wrap them. Code was two fifths
  of the elements of `systems.html` and most of its layout work.
- Paragraph sizes: so is a paragraph, as tall as the rows its visible
  text fills, from its characters counted here (its maths as KaTeX drew
  it), and the rows its display equations take. Paragraphs (their
  inline maths is hundreds of KaTeX elements) were most of the layout
  work left on `systems.html`: laid out only near the screen,
  Lighthouse's blocking time there fell from 40-280 ms to 50-85 ms.
  What may be on the first screen (the title block and the page's
  opening, before its first section heading) and a paragraph whose
  height is not its text's (an image) are laid out at once: a guessed
  height there would move the page as it appears (a layout shift: the
  landing page's subtitle, guessed at 6 rows, jumped to 2).

Only the standard library: Quarto may run this with any Python 3.
"""

from __future__ import annotations

import html
import re

# What AnchorJS 5.0.0 (site_libs/quarto-html/anchor.min.js) inserts:
# its stylesheet before the head's first style, and a link as the last
# child of every `.anchored` element, pointing at its id (else at its
# data-anchor-id), with Quarto's options (placement right, icon "").
ANCHOR_STYLE = (
    '<style class="anchorjs">'
    ".anchorjs-link{opacity:0;text-decoration:none;"
    "-webkit-font-smoothing:antialiased;-moz-osx-font-smoothing:grayscale}"
    ":hover>.anchorjs-link,.anchorjs-link:focus{opacity:1}"
    "[data-anchorjs-icon]::after{content:attr(data-anchorjs-icon)}"
    "@font-face{font-family:anchorjs-icons;src:url({font}) "
    'format("truetype")}</style>\n'
)
ANCHOR_FONT = re.compile(r"font-family:anchorjs-icons;src:url\((data:[^)]+)\)")
ANCHOR_LINK = (
    '<a class="anchorjs-link " aria-label="Anchor" data-anchorjs-icon="" '
    'href="#{id}" style="font: 1em / 1 anchorjs-icons; margin-left: '
    '0.1875em; padding-right: 0.1875em; padding-left: 0.1875em;"></a>'
)
ANCHORED = re.compile(
    r'<(h[1-6]|div)\b([^>]*\bclass="[^"]*\banchored\b[^>]*)>'
)
ATTRIBUTE = '\\b{}="([^"]+)"'
FIRST_STYLE = re.compile(r'<style|<link [^>]*rel="stylesheet"')
DIV_TAG = re.compile(r"<div\b|</div>")
# A code block's lines, each wrapped by Quarto, and the block around them.
CODE = re.compile(
    r'(<code class="sourceCode[^"]*"[^>]*>)(<span id="cb.*?)</code>', re.S
)
LINE = re.compile(r'<span id="cb\d+-\d+">([^\n]*?)</span>(?=\n|$)')
LINE_START = re.compile(r'<span id="cb\d+-\d+">')
CODE_BLOCK = re.compile(
    r'(<div class="sourceCode\b[^"]*"[^>]*)>(<pre\b.*?</pre>)',
    re.S,
)
TAG = re.compile(r"<[^>]+>")
# A paragraph of the chapter's text (Quarto writes them all as plain <p>),
# and the part of inline maths no one sees: MathML for screen readers,
# with the TeX source in it.
PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
HIDDEN_MATHS = re.compile(
    r'<span class="katex-mathml">.*?</math></span>', re.S
)
DISPLAY_MATHS = '<span class="math display">'
# KaTeX's struts: each line of a formula holds one, as tall as the line.
STRUT_HEIGHT = re.compile(r'class="katex-strut" style="height:([\d.]+)em')
SPAN_TAG = re.compile(r"<span\b|</span>")
# The zero-width spaces KaTeX writes into its formulas: no room on a row.
ZERO_WIDTH = "\u200b"
MAIN = re.compile(r"<main\b.*?</main>", re.S)
SPACES = re.compile(r"\s+")
WORD = re.compile(r"(\s*)(\S+)")
# How many characters of code fit on a row (measured in Chromium): 54 to 71
# from 768 px (a tablet) to 1279 px (56 at 992 px, where the sidebars come
# beside the text); 73 at 1280 px and 81 from 1366 px, where no line of
# the book's code (79 characters at most) wraps. On a phone (32 to 38) a
# long line scrolls instead (book.scss). book.scss picks the count for the
# screen.
MIDDLE_COLUMNS = 60
# A wrapped line's rest begins this many characters deeper than the line
# (book.scss), as Python's continuation lines do. Only a line longer than
# the fewest characters a row holds where code wraps (54 at 768 px) can
# wrap, and only such a line carries its own wrapper for it.
HANGING = 4
LONG_LINE = 54


def anchor_font(script: str) -> str | None:
    """The icon font AnchorJS declares, from its script."""
    match = ANCHOR_FONT.search(script)
    return match.group(1) if match else None


def _element_end(page: str, start: int, tag: str) -> int:
    """Where the element opened at `start` closes (its end tag's start)."""
    if tag not in ("div", "span"):
        return page.find(f"</{tag}>", start)
    depth = 0
    nested = DIV_TAG if tag == "div" else SPAN_TAG
    for match in nested.finditer(page, start):
        depth += 1 if match.group(0) == f"<{tag}" else -1
        if depth == 0:
            return match.start()
    return -1


def prebuilt_anchors(page: str, font: str | None) -> str:
    """The page with AnchorJS's links and stylesheet already in it."""
    if font is None or 'class="anchorjs"' in page:
        return page
    # Where AnchorJS puts its stylesheet: before the head's first one.
    head_end = page.find("</head>")
    first = FIRST_STYLE.search(page, 0, max(head_end, 0))
    if first is None:
        return page
    head_style = first.start()
    inserts = []
    for match in ANCHORED.finditer(page):
        attributes = match.group(2)
        found = re.search(ATTRIBUTE.format("id"), attributes) or re.search(
            ATTRIBUTE.format("data-anchor-id"), attributes
        )
        end = _element_end(page, match.start(), match.group(1))
        if found is None or end < 0:
            return page  # not as expected: AnchorJS does it in the browser
        inserts.append((end, ANCHOR_LINK.format(id=found.group(1))))
    if not inserts:
        return page
    for end, link in sorted(inserts, reverse=True):
        page = page[:end] + link + page[end:]
    style = ANCHOR_STYLE.replace("{font}", font)
    return page[:head_style] + style + page[head_style:]


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def hanging_line(line: str) -> str:
    """A line of code's HTML; a long one in a wrapper that makes its
    wrapped rest begin HANGING characters deeper than the line."""
    text = html.unescape(TAG.sub("", line))
    if len(text) <= LONG_LINE:
        return line
    hang = indentation(text) + HANGING
    return f'<span class="tb-long" style="--tb-hang:{hang}ch">{line}</span>'


def single_code_wrappers(page: str) -> str:
    """Each code block's lines in one wrapper instead of one per line (a
    long line keeps one of its own, for its hanging indent)."""
    if 'class="code-annotation' in page:
        return page  # annotations find their lines by these ids

    def replace(match: re.Match) -> str:
        lines = LINE.sub(
            lambda line: hanging_line(line.group(1)), match.group(2)
        )
        if LINE_START.search(lines):
            return match.group(0)  # a line not as expected: keep them all
        return f"{match.group(1)}<span>{lines}</span></code>"

    return CODE.sub(replace, page)


def wrapped_rows(line: str, columns: int, indent: int | None = None) -> int:
    """The rows a line of code takes when it wraps at `columns` characters.

    As book.scss wraps code: at spaces, and inside a word only when the
    word is longer than what is left of a row; every row after the first
    begins `indent` characters in (its hanging indent; by default HANGING
    more than the line's own).
    """
    if indent is None:
        indent = indentation(line) + HANGING
    rows, used, start = 1, 0, 0
    for spaces, word in WORD.findall(line):
        if used > start and used + len(spaces) + len(word) > columns:
            rows, used, start = rows + 1, indent, indent  # spaces stay
        else:
            used += len(spaces)
        while used + len(word) > columns:
            word = word[columns - used :]
            rows, used, start = rows + 1, indent, indent
        used += len(word)
    return rows


def sized_code_blocks(page: str) -> str:
    """Each code block with its line counts, for the size it takes unseen.

    `--tb-lines` is its number of lines (a wide screen does not wrap
    them, and a phone scrolls a long one); `--tb-middle-lines` are the
    rows they wrap into from a tablet to a small laptop.
    """

    def replace(match: re.Match) -> str:
        opening, code = match.groups()
        if " style=" in opening:
            return match.group(0)  # sized already (or styled by Quarto)
        lines = html.unescape(TAG.sub("", code)).split("\n")
        middle = sum(wrapped_rows(line, MIDDLE_COLUMNS) for line in lines)
        sizes = f"--tb-lines:{len(lines)};--tb-middle-lines:{middle}"
        return f'{opening} style="{sizes}">{code}'

    return CODE_BLOCK.sub(replace, page)


def opening_end(page: str) -> int:
    """Where a page's opening ends: its first section heading after the
    start of its main text (-1 without one). The opening may be on the
    first screen."""
    return page.find("<h2", max(page.find("<main"), 0))


def visible_characters(paragraph: str) -> int:
    """How many characters a paragraph's HTML shows (its maths as drawn)."""
    text = html.unescape(TAG.sub("", HIDDEN_MATHS.sub("", paragraph)))
    text = text.replace(ZERO_WIDTH, "")
    return len(SPACES.sub(" ", text).strip())


def display_rows(formula: str) -> tuple[float, float]:
    """The rows of text a display equation takes in a paragraph: from a
    tablet's width up, and on a phone.

    Measured in Chromium on the book's equations: the formula's tallest
    strut (h em of KaTeX's type, 1.21 times the text's) makes it
    0.81 h + 0.33 rows tall (padding included), but no less than 1.34,
    and its margins add 1.33 rows. On a phone (book.scss) its type is
    1.1 times the text's, 0.74 h + 0.33 rows but no less than 1.21, and
    its number takes a line of its own, 0.88 rows.
    """
    struts = [float(height) for height in STRUT_HEIGHT.findall(formula)]
    tallest = max(struts, default=1)
    wide = max(1.34, 0.81 * tallest + 0.33) + 1.33
    phone = max(1.21, 0.74 * tallest + 0.33) + 1.33
    if 'class="katex-tag"' in formula:
        phone += 0.88
    return wide, phone


def without_displays(paragraph: str) -> tuple[str, float, float]:
    """A paragraph's HTML without its display equations, and the rows
    they take from a tablet's width up and on a phone."""
    wide = phone = 0.0
    start = paragraph.find(DISPLAY_MATHS)
    while start >= 0:
        end = _element_end(paragraph, start, "span")
        if end < 0:
            break  # not as expected: counted as text
        end += len("</span>")
        rows = display_rows(paragraph[start:end])
        wide, phone = wide + rows[0], phone + rows[1]
        paragraph = paragraph[:start] + paragraph[end:]
        start = paragraph.find(DISPLAY_MATHS, start)
    return paragraph, wide, phone


def sized_paragraphs(page: str) -> str:
    """Each paragraph of the main text after its opening with what it
    shows: `--tb-chars`, its visible characters but for its display
    equations, and the rows those take, `--tb-display-rows` from a
    tablet's width up and `--tb-phone-display-rows` on a phone.

    book.scss turns them into the height a paragraph takes until it is
    laid out. Run it on pages whose maths is drawn (maths.py): a formula
    not yet drawn counts its TeX.
    """

    def size(match: re.Match) -> str:
        inner = match.group(1)
        if "<img" in inner:
            return match.group(0)
        text, wide, phone = without_displays(inner)
        sizes = f"--tb-chars:{visible_characters(text)}"
        if wide:
            sizes += f";--tb-display-rows:{wide:.2f}"
            sizes += f";--tb-phone-display-rows:{phone:.2f}"
        return f'<p style="{sizes}">{inner}</p>'

    def sized(main: re.Match) -> str:
        text = main.group(0)
        start = opening_end(text)
        if start < 0:
            return text  # a page without sections is all opening
        return text[:start] + PARAGRAPH.sub(size, text[start:])

    return MAIN.sub(sized, page)
