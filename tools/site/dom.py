"""Markup built once at render time: fewer layouts, and a phone's contents.

- AnchorJS (Quarto's hover link beside each heading) adds its links and a
  stylesheet once the page is parsed, which laid the whole page out again.
  Written here as AnchorJS writes them, they are found by AnchorJS, which
  then does nothing. Without it (2026-12-05, 3-4 runs): systems 0.95, not
  0.97, with 80-140 ms more blocking time on each chapter page.
- Quarto wraps every line of code in an inline block (for annotations and
  line numbers, which the book does not use). A block keeps one wrapper
  for its lines, and a long line one of its own, whose wrapped rest hangs
  4 characters deeper than the line (Pandoc's hangs 5em from the block's
  edge). Without it (2026-12-05, 5 runs) no score moved and blocking time
  grew 10-50 ms: it stays for the indent.
- A code block is laid out only near the screen (book.scss); until then
  it is as tall as its lines, counted here. Measured (Lighthouse mobile,
  median of 5): this keeps systems.html at 0.97; without it (and pruning)
  single runs gave systems 0.81 and maths-and-code 0.83.
- Quarto hides the right margin, with a page's contents and notebook
  links, below 992 px (quarto-dev/quarto-cli#5961); a copy goes in a
  closed `<details>` under the title (shown only there), without ids.
  Quarto's `toc-location: right-body` prints a second, open table on
  every screen, without the notebook links.
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
# A line in its wrapper, with the empty link to it (1,576 on systems.html)
# that would point at nothing once the wrapper goes.
LINE = re.compile(
    r'<span id="cb\d+-\d+">(?:<a href="#cb\d+-\d+" aria-hidden="true" '
    r'tabindex="-1"></a>)?([^\n]*?)</span>(?=\n|$)'
)
LINE_START = re.compile(r'<span id="cb\d+-\d+">')
CODE_BLOCK = re.compile(
    r'(<div class="sourceCode\b[^"]*"[^>]*)>(<pre\b.*?</pre>)',
    re.S,
)
TAG = re.compile(r"<[^>]+>")
# A wrapped line's rest begins this many characters deeper than the line
# (book.scss), as Python's continuation lines do. Only a line longer than
# the fewest characters a row holds where code wraps (54 at 768 px, where
# a phone's narrower screen scrolls it instead) carries a wrapper for it.
HANGING = 4
LONG_LINE = 54


def anchor_font(script: str) -> str | None:
    match = ANCHOR_FONT.search(script)
    return match.group(1) if match else None


def _element_end(page: str, start: int, tag: str) -> int:
    if tag != "div":
        return page.find(f"</{tag}>", start)
    depth = 0
    for match in DIV_TAG.finditer(page, start):
        depth += 1 if match.group(0) == f"<{tag}" else -1
        if depth == 0:
            return match.start()
    return -1


def prebuilt_anchors(page: str, font: str | None) -> str:
    if font is None or 'class="anchorjs"' in page:
        return page
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


def hanging_line(line: str) -> str:
    text = html.unescape(TAG.sub("", line))
    if len(text) <= LONG_LINE:
        return line
    hang = len(text) - len(text.lstrip(" ")) + HANGING
    return f'<span class="tb-long" style="--tb-hang:{hang}ch">{line}</span>'


def single_code_wrappers(page: str) -> str:
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


def sized_code_blocks(page: str) -> str:
    def replace(match: re.Match) -> str:
        opening, code = match.groups()
        if " style=" in opening:
            return match.group(0)  # sized already (or styled by Quarto)
        lines = html.unescape(TAG.sub("", code)).count("\n") + 1
        return f'{opening} style="--tb-lines:{lines}">{code}'

    return CODE_BLOCK.sub(replace, page)


def opening_end(page: str) -> int:
    """Where a page's opening ends: its first section heading after the
    start of its main text (-1 without one). The opening may be on the
    first screen."""
    return page.find("<h2", max(page.find("<main"), 0))


TOC = re.compile(r'<nav id="TOC" role="doc-toc"[^>]*>(.*?)</nav>', re.S)
SECTIONS = re.compile(r"<ul>.*</ul>", re.S)
OTHER_LINKS = re.compile(
    r'<div class="quarto-other-links"><h2>[^<]*</h2><ul>(.*?)</ul></div>',
    re.S,
)
ID = re.compile(r'\s(?:id|data-scroll-target)="[^"]*"')
TITLE_END = "</header>"


def phone_contents(page: str) -> str:
    toc = TOC.search(page)
    main = page.find('<main class="content"')
    title_end = page.find(TITLE_END, max(main, 0))
    if toc is None or main < 0 or title_end < 0 or "tb-phone-toc" in page:
        return page
    inner = toc.group(1)
    sections = SECTIONS.search(inner.split('<div class="toc-actions">')[0])
    links = OTHER_LINKS.search(inner)
    if sections is None:
        return page
    listed = ID.sub("", sections.group(0))
    listed = listed.replace('<ul class="collapse">', "<ul>")
    # Quarto's scripts follow the links of its own table by this class.
    listed = re.sub(r' class="nav-link[^"]*"', "", listed)
    notebook = (
        f'<ul class="tb-phone-links">{links.group(1)}</ul>' if links else ""
    )
    copy = (
        f'\n<details class="tb-phone-toc"><summary>On this page</summary>'
        f"{notebook}{listed}</details>\n"
    )
    at = title_end + len(TITLE_END)
    return page[:at] + copy + page[at:]
