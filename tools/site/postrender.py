"""Finish the rendered website: load only what a page needs, when it needs it.

Rendered by Quarto alone, the book scored 0.37 (systems) to 0.83 (course)
in Lighthouse mobile; finished here, 0.95-1.00. Quarto runs this after
every render (`post-render` in _quarto.yml; by hand:
`.venv/bin/python -m tools.site.postrender _book`); finishing twice
changes nothing. Only the standard library: Quarto may run this with any
Python 3.

Each rewrite switched off alone (Lighthouse mobile, 2026-12-05; the table
is in the commit message "Post-render ablation"): the lazy OJS runtime
costs the explorers' pages 0.10-0.12, eager figures up to 0.11, the
header height (lazy.py) and the KaTeX font preload 0.02 each, with layout
shifts of 0.07-0.095. Figure sizes (Quarto gives none) keep a figure from
moving the text.
"""

from __future__ import annotations

import html
import os
import re
import struct
import sys
from collections.abc import Mapping
from pathlib import Path

from tools.site import dom, lazy, maths, prune_css, search_text

# A table of the text (not a code cell's line-number table, which has none
# here): Quarto writes `<table class="caption-top table">` and the like.
TABLE = re.compile(r'<table( class="[^"]*table[^"]*")>')
FLOATING_TOGGLE = re.compile(
    r"(a\.classList\.add\('top-right'\);)(?!\n *a\.title = )"
)
IMAGE = re.compile(r'<img src="([^":]+\.(?:png|svg))"(?! width=)')
# An SVG's own size, on its root element: a length in pt or px.
SVG_SIZE = re.compile(
    r'<svg\b[^>]*?\bwidth="([\d.]+)(pt|px)?"[^>]*?\bheight="([\d.]+)(pt|px)?"'
)
PAGINATION_LABEL = re.compile(r'(class="pagination-link") aria-label="[^"]*"')
OUTPUT_PRE = re.compile(
    r'(<div class="cell-output cell-output-stdout">\s*)<pre>(<code>(.*?)'
    r"</code></pre>)",
    re.S,
)
# Characters of monospace text that fit beside the margins of a phone.
PHONE_COLUMNS = 40
CODE_PRE = re.compile(
    r'<pre class="sourceCode([^"]*)">(<code\b.*?</pre>)', re.S
)


def focusable_when_wide(page: str, block: re.Pattern, label: str) -> str:
    """Each block (its text the pattern's last group) that scrolls
    sideways on a phone (book.scss) focusable, so a keyboard can scroll
    it (axe: scrollable-region-focusable)."""
    focusable = f'<pre tabindex="0" role="region" aria-label="{label}"'

    def replace(match: re.Match) -> str:
        text = html.unescape(dom.TAG.sub("", match.group(match.lastindex)))
        if max(map(len, text.split("\n"))) <= PHONE_COLUMNS:
            return match.group(0)
        return match.group(0).replace("<pre", focusable, 1)

    return block.sub(replace, page)


def image_size(path: Path) -> tuple[int, int] | None:
    """Width and height in CSS pixels of a PNG or SVG file."""
    try:
        with path.open("rb") as file:
            header = file.read(2048)
    except OSError:
        return None
    if header[:8] == b"\x89PNG\r\n\x1a\n":  # then its IHDR: width, height
        return struct.unpack(">II", header[16:24])
    found = SVG_SIZE.search(header.decode("utf-8", "replace"))
    if found is None:
        return None
    width, width_unit, height, height_unit = found.groups()
    scale = {"pt": 4 / 3, "px": 1, None: 1}
    return (
        round(float(width) * scale[width_unit]),
        round(float(height) * scale[height_unit]),
    )


def sized_lazy_images(page: str, folder: Path) -> str:
    """Each figure with its size (no layout shift as it arrives); lazy,
    but for a first one before the first section heading, which may be on
    the first screen."""
    seen = 0
    opening = dom.opening_end(page)

    def replace(match: re.Match) -> str:
        nonlocal seen
        seen += 1
        size = image_size(folder / html.unescape(match.group(1)))
        if size is None:
            return match.group(0)
        eager = seen == 1 and (opening < 0 or match.start() < opening)
        lazy = "" if eager else ' loading="lazy"'
        return f'{match.group(0)} width="{size[0]}" height="{size[1]}"{lazy}'

    return IMAGE.sub(replace, page)


def finish(page: str, anchor_font: str | None = None) -> str:
    # The 404 page's scheme toggle (it has no sidebar's) is an icon alone:
    # no name (axe: link-name).
    page = FLOATING_TOGGLE.sub(
        r'\1\n      a.title = "Toggle dark mode";', page
    )
    # The previous/next links' aria-label left out the chapter number their
    # text shows.
    page = PAGINATION_LABEL.sub(r"\1", page)
    # On a phone a table may scroll sideways (book.scss).
    page = TABLE.sub(r'<table tabindex="0"\1>', page)
    page = dom.single_code_wrappers(page)
    page = focusable_when_wide(page, CODE_PRE, "Code")
    page = dom.sized_code_blocks(page)
    page = dom.prebuilt_anchors(page, anchor_font)
    page = lazy.lazy_scripts(lazy.lazy_ojs(page))
    page = dom.phone_contents(page)
    page = focusable_when_wide(page, OUTPUT_PRE, "Printed output")
    return lazy.header_offset(page)


def main(argv: list[str], environ: Mapping[str, str] = os.environ) -> int:
    site = argv[0] if argv else environ.get("QUARTO_PROJECT_OUTPUT_DIR")
    if not site:
        print("usage: postrender.py SITE", file=sys.stderr)
        return 2
    anchor_js = Path(site) / "site_libs" / "quarto-html" / "anchor.min.js"
    anchors = anchor_js.read_text("utf-8") if anchor_js.is_file() else None
    font = dom.anchor_font(anchors) if anchors else None
    # Every page, also after a one-page render: finishing a finished page
    # changes nothing, and a pass over the whole book takes 0.15 s.
    pages = {
        path: path.read_text(encoding="utf-8")
        for path in Path(site).rglob("*.html")
    }
    finished = maths.drawn_pages(
        {
            path: sized_lazy_images(finish(page, font), path.parent)
            for path, page in pages.items()
        }
    )
    for path, page in finished.items():
        page = lazy.preload_maths_fonts(page)
        if page != pages[path]:
            path.write_text(page, encoding="utf-8")
    search_text.rewrite_index(Path(site))
    # After the pages: what the pages (and scripts) use decides what stays.
    words = prune_css.site_words(Path(site))
    prune_css.install_icons(Path(site), words)
    prune_css.prune_site(Path(site), words)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
