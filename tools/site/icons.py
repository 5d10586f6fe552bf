"""The site's icon font: only the Bootstrap Icons the site shows, as WOFF2.

Quarto serves all of Bootstrap Icons (a 176 KB WOFF and 100 KB of CSS) to
show about a dozen. `icons/` holds a subset of the same font with the CSS
for exactly those, built by `build` with fontTools (README.md says how);
`install` (postrender.py) puts them in place of Quarto's. If the site
uses an icon the subset lacks, it keeps Quarto's font and prints a
`WARN:` line, which fails tools/render.sh.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).with_name("icons")
CSS = "bootstrap-icons.css"
FONT = "bootstrap-icons.woff2"
# The icons the site uses: Quarto's page furniture (navigation, sidebar,
# search, PDF and source links, the chapters' notebook links) and what its
# scripts insert (search, code copy, the table of contents).
ICONS = (
    "arrow-left-short",
    "arrow-right-short",
    "caret-down-fill",
    "check2",
    "chevron-right",
    "clipboard",
    "download",
    "exclamation-circle",
    "file-pdf",
    "github",
    "google",
    "layout-text-sidebar-reverse",
    "search",
)
# Every glyph of the font is 1em wide: so is its box, before the font has
# arrived (the text around an icon does not move when it does).
WIDTH = """[class^="bi-"]::before,
[class*=" bi-"]::before {
  width: 1em;
}
"""
ICON_NAME = re.compile(r"\bbi-([a-z0-9]+(?:-[a-z0-9]+)*)")
RULE = re.compile(
    r'^\.bi-([a-z0-9-]+)::before \{ content: "\\([0-9a-f]+)"; \}$'
)


def used_icons(words: set[str]) -> set[str]:
    """Names of the icons the site's words (prune_css.site_words: those of
    its pages and scripts) refer to."""
    # A word (a run of [A-Za-z0-9_-]) holds an icon's name whole, with what
    # precedes it in that run: ICON_NAME finds in the words every name it
    # would find in the pages.
    return {
        name
        for word in words
        if "bi-" in word
        for name in ICON_NAME.findall(word)
    }


def subset_icons(css: str) -> set[str]:
    """Names of the icons a stylesheet of the subset draws."""
    return {m.group(1) for m in map(RULE.match, css.splitlines()) if m}


def install(site: Path, words: set[str]) -> list[str]:
    """Put the subset in the site; the used icons it lacks (if any), given
    the site's words."""
    target = site / "site_libs" / "bootstrap"
    if not (target / CSS).is_file():
        return []
    css = (HERE / CSS).read_text(encoding="utf-8")
    missing = sorted(used_icons(words) - subset_icons(css))
    if missing:
        print(
            "WARN: postrender: the site uses icons missing from "
            f"tools/site/icons/: {', '.join(missing)}; it keeps Quarto's "
            "whole icon font (see tools/site/icons.py)",
            file=sys.stderr,
        )
        return missing
    if (target / CSS).read_text(encoding="utf-8") != css:
        (target / CSS).write_text(css, encoding="utf-8")
    if not (target / FONT).is_file():
        shutil.copyfile(HERE / FONT, target / FONT)
    (target / "bootstrap-icons.woff").unlink(missing_ok=True)
    return []


def build(source: Path) -> None:
    """Write icons/ from Quarto's bootstrap-icons.css and .woff."""
    from fontTools import subset  # only to build: not needed to install

    css = (source / CSS).read_text(encoding="utf-8")
    header = css[: css.index("@font-face")]
    base = css[css.index(".bi::before") :]
    base = base[: base.index("}") + 1]
    codes = {}
    for line in css.splitlines():
        match = RULE.match(line)
        if match and match.group(1) in ICONS:
            codes[match.group(1)] = match.group(2)
    if set(codes) != set(ICONS):
        raise SystemExit(f"not in {source / CSS}: {set(ICONS) - set(codes)}")
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    font = subset.load_font(str(source / "bootstrap-icons.woff"), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[int(code, 16) for code in codes.values()])
    subsetter.subset(font)
    HERE.mkdir(exist_ok=True)
    subset.save_font(font, str(HERE / FONT), options)
    rules = "".join(
        f'.bi-{name}::before {{ content: "\\{codes[name]}"; }}\n'
        for name in sorted(codes)
    )
    (HERE / CSS).write_text(
        f"{header}/* Subset: the icons named in tools/site/icons.py. */\n\n"
        "@font-face {\n  font-display: block;\n"
        '  font-family: "bootstrap-icons";\n'
        f'  src: url("./{FONT}") format("woff2");\n}}\n\n'
        f"{base}\n\n{WIDTH}\n{rules}",
        encoding="utf-8",
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m tools.site.icons QUARTO_ICONS_DIR")
    build(Path(sys.argv[1]))
