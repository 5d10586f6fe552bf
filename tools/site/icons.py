"""The site's icon font: only the Bootstrap Icons the site shows, as WOFF2.

Quarto serves all of Bootstrap Icons (a 176 KB WOFF and 100 KB of CSS) to
show about a dozen; `icons/` holds the subset (fontTools' pyftsubset makes
it: README.md). If the site uses an icon the subset lacks, it keeps
Quarto's font and prints a `WARN:` line, which fails tools/render.sh.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).with_name("icons")
CSS = "bootstrap-icons.css"
FONT = "bootstrap-icons.woff2"
ICON_NAME = re.compile(r"\bbi-([a-z0-9]+(?:-[a-z0-9]+)*)")
RULE = re.compile(r"^\.bi-([a-z0-9-]+)::before", re.M)


def used_icons(words: set[str]) -> set[str]:
    # A word of prune_css.site_words (a run of [A-Za-z0-9_-]) holds an
    # icon's name whole: the words name every icon the pages and scripts do.
    return {name for word in words for name in ICON_NAME.findall(word)}


def subset_icons(css: str) -> set[str]:
    return set(RULE.findall(css))


def install(site: Path, words: set[str]) -> list[str]:
    """Put the subset in the site; the used icons it lacks (if any)."""
    target = site / "site_libs" / "bootstrap"
    if not (target / CSS).is_file():
        return []
    css = (HERE / CSS).read_text(encoding="utf-8")
    missing = sorted(used_icons(words) - subset_icons(css))
    if missing:
        print(
            "WARN: postrender: the site uses icons missing from "
            f"tools/site/icons/: {', '.join(missing)}; it keeps Quarto's "
            "whole icon font (tools/site/README.md: the icon subset)",
            file=sys.stderr,
        )
        return missing
    if (target / CSS).read_text(encoding="utf-8") != css:
        (target / CSS).write_text(css, encoding="utf-8")
    if not (target / FONT).is_file():
        shutil.copyfile(HERE / FONT, target / FONT)
    (target / "bootstrap-icons.woff").unlink(missing_ok=True)
    return []
