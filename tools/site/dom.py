"""Code blocks that cost the browser less layout (postrender.py applies
these to every page after each render):

- Code lines: Quarto wraps every line of code in a `<span id="cbN-M">`
  (an inline block, a target for code annotations and line numbers,
  which the book does not use). A code block keeps one such wrapper for
  all its lines (book.scss gives it the same line height): a tenth of a
  chapter page's elements, and the costliest to lay out. A line long
  enough to wrap keeps a wrapper of its own, for a hanging indent.
- Code block sizes: a browser lays out a code block only when it comes
  near the screen (`content-visibility: auto` in book.scss); until then
  it is as tall as its lines, counted here. Measured (Lighthouse mobile,
  2026-12-05): either this or the same for paragraphs keeps systems.html
  at 0.97 (median of 5); without both (and pruning), single runs gave
  systems 0.81 and maths-and-code 0.83, blocking time about 500 ms. The
  paragraphs' (their heights guessed from their characters) went.

Only the standard library: Quarto may run this with any Python 3.
"""

from __future__ import annotations

import html
import re

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
# A wrapped line's rest begins this many characters deeper than the line
# (book.scss), as Python's continuation lines do. Only a line longer than
# the fewest characters a row holds where code wraps (54 at 768 px, where
# a phone's narrower screen scrolls it instead) carries a wrapper for it.
HANGING = 4
LONG_LINE = 54


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


def sized_code_blocks(page: str) -> str:
    """Each code block with its number of lines (`--tb-lines`), the
    height it takes unseen (a phone scrolls a long line; a wide screen
    does not wrap it)."""

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
