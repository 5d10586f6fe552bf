"""The site's maths, drawn when the site is built, by KaTeX run by Node.

A page then loads no KaTeX script and does not shift as formulas are
drawn. One Node process (katex_render.cjs) draws every page's formulas
(0.16 s for the book's 613). Without `node` on PATH a page keeps Quarto's
in-browser rendering.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

KATEX_RENDER = Path(__file__).with_name("katex_render.cjs")
# A formula not yet drawn: its TeX, escaped, holds no tag (a drawn one
# holds KaTeX's markup, so running again leaves it alone).
MATH = re.compile(r'<span class="math (inline|display)">([^<]*)</span>')
# Quarto's in-page KaTeX: the script and the loop that renders each span.
KATEX_SCRIPT = re.compile(
    r'\s*<script defer="" src="[^"]*katex\.min\.js"></script>'
)
KATEX_LOOP = re.compile(
    r'\s*<script>document\.addEventListener\("DOMContentLoaded", function '
    r"\(\) \{\n var mathElements.*?</script>",
    re.S,
)


def drawn_pages(pages: dict[Path, str]) -> dict[Path, str]:
    # [TeX, whether it is displayed] of each formula, page after page.
    found = [
        [html.unescape(tex), kind == "display"]
        for page in pages.values()
        for kind, tex in MATH.findall(page)
    ]
    node = shutil.which("node")
    if not found or node is None:
        return pages
    drawn = subprocess.run(
        [node, str(KATEX_RENDER)],
        input=json.dumps(found),
        capture_output=True,
        text=True,
        check=True,
    )
    drawings = iter(json.loads(drawn.stdout))

    def replace(match: re.Match) -> str:
        # A display equation may scroll sideways (tools/site/book.scss):
        # the element that scrolls, KaTeX's own block, takes the focus.
        formula = next(drawings).replace(
            '<span class="katex-display">',
            '<span class="katex-display" tabindex="0">',
            1,
        )
        return f'<span class="math {match.group(1)}">{formula}</span>'

    finished = {}
    for path, page in pages.items():
        if MATH.search(page):
            page = MATH.sub(replace, page)
            page = KATEX_LOOP.sub("", KATEX_SCRIPT.sub("", page, count=1))
        finished[path] = page
    return finished
