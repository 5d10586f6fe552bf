"""A page's table of contents and notebook links, where a phone shows them.

Quarto puts both in the right-hand margin, which it hides below 992 px
(quarto-dev/quarto-cli#5961): a phone reader of a chapter had neither a
list of its sections nor the links to its notebook and Colab. A copy goes
in a closed `<details>` under the title (book.scss shows it only there),
without ids (they stay unique to Quarto's table). Quarto's `toc-location:
right-body` prints a second, open table on every screen, without the
notebook links.
"""

from __future__ import annotations

import re

TOC = re.compile(r'<nav id="TOC" role="doc-toc"[^>]*>(.*?)</nav>', re.S)
SECTIONS = re.compile(r"<ul>.*</ul>", re.S)
OTHER_LINKS = re.compile(
    r'<div class="quarto-other-links"><h2>[^<]*</h2><ul>(.*?)</ul></div>',
    re.S,
)
ID = re.compile(r'\s(?:id|data-scroll-target)="[^"]*"')
TITLE_END = "</header>"
SUMMARY = "On this page"


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
        f'\n<details class="tb-phone-toc"><summary>{SUMMARY}</summary>'
        f"{notebook}{listed}</details>\n"
    )
    at = title_end + len(TITLE_END)
    return page[:at] + copy + page[at:]
