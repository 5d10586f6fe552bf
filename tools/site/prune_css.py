"""Only the CSS rules and icons the site can use.

Each theme's stylesheet (about 500 KB) holds up a page's first paint.
Measured (Lighthouse mobile, median of 5): without pruning, systems,
maths-and-code and mechanics score 0.94-0.95 instead of 0.97-0.98. A rule
goes only when each selector needs a class or id that is a word in no
page and no script (what is inside `:not()` or brackets never counts).

PurgeCSS (npm) does the same, but would put an npm install into every
render, which needs only Node's binary (for KaTeX).

Quarto serves all of Bootstrap Icons (a 176 KB WOFF and 100 KB of CSS) to
show about a dozen; `icons/` holds the subset (fontTools' pyftsubset makes
it: README.md). If the site uses an icon the subset lacks, it keeps
Quarto's font and prints a `WARN:` line, which fails tools/render.sh.
"""

from __future__ import annotations

import functools
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

# Class names scripts assemble at run time (never a word in their source):
# Bootstrap's tooltip adds `bs-${NAME}-auto`.
BUILT = {"bs-tooltip-auto", "bs-popover-auto"}
# Prefixes of class names that generated code may assemble (the OJS
# runtime, Bootstrap, Algolia's autocomplete): rules with them stay.
PREFIXES = ("observablehq", "ojs-", "bs-", "aa-")
# What opens or ends a statement, and what may hold a brace that does
# not: a comment, a string.
TOKEN = re.compile(
    r"""/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[{};]""", re.S
)
# A word: a run of these ASCII characters (a class or id name is one); a
# page is read as bytes, so every other byte, UTF-8's included, ends one.
WORD = re.compile(rb"[A-Za-z0-9_-]+")
NAME = re.compile(r"[.#](-?[_A-Za-z][\w-]*)(\\)?")
NESTED = ("@media", "@supports", "@container", "@layer")
ICONS = Path(__file__).with_name("icons")
ICON_CSS = "bootstrap-icons.css"
ICON_FONT = "bootstrap-icons.woff2"
ICON_NAME = re.compile(r"\bbi-([a-z0-9]+(?:-[a-z0-9]+)*)")
ICON_RULE = re.compile(r"^\.bi-([a-z0-9-]+)::before", re.M)


def blocks(css: str) -> list[tuple[str, str | None]]:
    """The top-level statements of a stylesheet: (prelude, body or None)."""
    found: list[tuple[str, str | None]] = []
    depth = start = 0
    prelude = ""
    for match in TOKEN.finditer(css):
        token, at, end = match.group(0), match.start(), match.end()
        if token.startswith("/*"):
            if depth == 0 and not css[start:at].strip():
                found.append((token, None))
                start = end
        elif token == "{":
            if depth == 0:
                prelude = css[start:at].strip()
                start = end
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                found.append((prelude, css[start:at]))
                start = end
        elif token == ";" and depth == 0:
            found.append((css[start:end].strip(), None))
            start = end
    if css[start:].strip():
        found.append((css[start:].strip(), None))
    return found


def top_level(text: str) -> Iterator[tuple[int, str]]:
    """Each character outside brackets and parentheses, with its index."""
    depth = 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0:
            yield index, char


def split_selectors(prelude: str) -> list[str]:
    commas = [i for i, char in top_level(prelude) if char == ","]
    pairs = zip([-1, *commas], [*commas, None], strict=True)
    return [prelude[a + 1 : b] for a, b in pairs]


@functools.cache  # both themes share most selectors
def required_names(selector: str) -> tuple[str, ...] | None:
    """Classes and ids a selector needs, or None if it cannot tell."""
    outer = "".join(char for _, char in top_level(selector))
    names = []
    for match in NAME.finditer(outer):
        if match.group(2):  # an escaped character: keep the rule
            return None
        names.append(match.group(1))
    return tuple(names)


def can_match(selector: str, words: set[str]) -> bool:
    names = required_names(selector)
    return names is None or all(
        name in words or name.startswith(PREFIXES) for name in names
    )


def prune(css: str, words: set[str]) -> str:
    kept = []
    for prelude, body in blocks(css):
        if body is None:
            kept.append(prelude)
        elif prelude.startswith("@"):
            if prelude.split(None, 1)[0].split("(")[0] in NESTED:
                inner = prune(body, words)
                if inner:
                    kept.append(f"{prelude}{{{inner}}}")
            else:
                kept.append(f"{prelude}{{{body}}}")
        else:
            selectors = [
                s for s in split_selectors(prelude) if can_match(s, words)
            ]
            if selectors:
                kept.append(f"{','.join(selectors)}{{{body}}}")
    return "".join(kept)


def site_words(site: Path) -> set[str]:
    found: set[bytes] = set()
    for path in site.rglob("*"):
        if path.suffix in (".html", ".js", ".mjs") and path.is_file():
            found.update(WORD.findall(path.read_bytes()))
    return BUILT | {word.decode("ascii") for word in found}


def prune_site(site: Path, words: set[str]) -> None:
    for sheet in (site / "site_libs" / "bootstrap").glob("bootstrap*.css"):
        if sheet.name == ICON_CSS:
            continue
        css = sheet.read_text(encoding="utf-8")
        sheet.write_text(prune(css, words), encoding="utf-8")


def used_icons(words: set[str]) -> set[str]:
    # A word of site_words (a run of [A-Za-z0-9_-]) holds an
    # icon's name whole: the words name every icon the pages and scripts do.
    return {name for word in words for name in ICON_NAME.findall(word)}


def install_icons(site: Path, words: set[str]) -> list[str]:
    """Put the subset in the site; the used icons it lacks (if any)."""
    target = site / "site_libs" / "bootstrap"
    if not (target / ICON_CSS).is_file():
        return []
    css = (ICONS / ICON_CSS).read_text(encoding="utf-8")
    missing = sorted(used_icons(words) - set(ICON_RULE.findall(css)))
    if missing:
        print(
            "WARN: postrender: the site uses icons missing from "
            f"tools/site/icons/: {', '.join(missing)}; it keeps Quarto's "
            "whole icon font (tools/site/README.md: the icon subset)",
            file=sys.stderr,
        )
        return missing
    (target / ICON_CSS).write_text(css, encoding="utf-8")
    shutil.copyfile(ICONS / ICON_FONT, target / ICON_FONT)
    (target / "bootstrap-icons.woff").unlink(missing_ok=True)
    return []
