"""The website's configuration keeps its promises, checked without Quarto.

The book must work offline (maths, fonts and explorers served by the site
itself), offer light and dark themes and a PDF, and check accessibility
while developing. tools/site/README.md says where the vendored files come
from.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

QUARTO = "_quarto.yml"
CHAPTERS_METADATA = "chapters/_metadata.yml"
DEV_PROFILE = "_quarto-dev.yml"
OFFLINE_SCSS = "tools/site/offline.scss"
OJS_LIBS = ("tools/site/ojs/htl.min.js", "tools/site/ojs/inputs.min.js")
FORMULAS = "chapters/explorer-formulas.js"
# The chapters with an explorer: a website-only div of {ojs} cells.
EXPLORERS = ("chapters/mechanics.qmd", "chapters/systems.qmd")
WEBSITE_DIV = re.compile(
    r'^::: \{\.content-visible when-format="html"\}\n(.*?)^:::$', re.M | re.S
)
OJS_CELL = re.compile(r"^```\{ojs\}\n(.*?)^```$", re.M | re.S)
VENDORED_LIMIT = 1_500_000  # bytes


def load(relative: str) -> dict:
    path = ROOT / relative
    assert path.exists(), f"{relative} is missing"
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def html_format(relative: str) -> dict:
    html = load(relative).get("format", {}).get("html")
    assert isinstance(html, dict), f"{relative}: no format: html: options"
    return html


def resources() -> list[str]:
    return load(QUARTO).get("project", {}).get("resources", []) or []


def copied(relative: str) -> bool:
    """Whether a `project: resources` entry copies this file or folder."""
    for entry in resources():
        # A leading slash anchors the glob at the project root.
        entry = entry.removeprefix("/")
        folder = entry.rstrip("/")
        if fnmatch.fnmatch(relative, entry) or relative == folder:
            return True
        if relative.startswith(folder + "/"):
            return True
    return False


def project_path(path: Path) -> str:
    return path.resolve().relative_to(ROOT.resolve()).as_posix()


# ------------------------------------------------------------------ KaTeX

# Each config file with its KaTeX URL, and the folder its pages live in
# (the URL is written into the page as it stands, relative to the page).
MATH_SETTINGS = [(QUARTO, ROOT), (CHAPTERS_METADATA, ROOT / "chapters")]


@pytest.mark.parametrize(
    ("relative", "page_dir"), MATH_SETTINGS, ids=[m[0] for m in MATH_SETTINGS]
)
def test_katex_url_points_at_the_katex_files(relative, page_dir):
    math = html_format(relative).get("html-math-method")
    assert isinstance(math, dict), (
        f"{relative}: html-math-method must be {{method: katex, url: ...}}"
    )
    assert math.get("method") == "katex", f"{relative}: method is not katex"
    url = str(math.get("url", ""))
    assert url.endswith("/"), (
        f"{relative}: the KaTeX url '{url}' needs a trailing slash "
        "(katex.min.js is appended to it)"
    )
    assert "://" not in url and not url.startswith("/"), (
        f"{relative}: the KaTeX url '{url}' must be relative, served by "
        "the site itself"
    )
    folder = page_dir / url
    for name in ("katex.min.js", "katex.min.css"):
        assert (folder / name).is_file(), (
            f"{relative}: url '{url}' seen from "
            f"{project_path(page_dir) or '.'}/ has no {name}"
        )
    assert copied(project_path(folder)), (
        f"{QUARTO}: project: resources does not copy "
        f"{project_path(folder)}/, which {relative} points to"
    )


def test_both_katex_urls_name_the_same_folder():
    folders = {
        (page_dir / html_format(relative)["html-math-method"]["url"]).resolve()
        for relative, page_dir in MATH_SETTINGS
    }
    assert len(folders) == 1, (
        f"{QUARTO} and {CHAPTERS_METADATA}: the KaTeX urls point at "
        f"different folders: {sorted(map(str, folders))}"
    )


def katex_folder() -> Path:
    url = html_format(QUARTO)["html-math-method"]["url"]
    return ROOT / url


def test_katex_css_finds_a_font_for_every_face():
    folder = katex_folder()
    css_path = folder / "katex.min.css"
    css = css_path.read_text(encoding="utf-8")
    faces = re.findall(r"@font-face\{[^}]*\}", css)
    assert faces, f"{project_path(css_path)}: no @font-face rules"
    for face in faces:
        urls = re.findall(r"url\(([^)]+)\)", face)
        woff2 = [u for u in urls if u.endswith(".woff2")]
        assert woff2 and urls[0] == woff2[0], (
            f"{project_path(css_path)}: a font face does not list WOFF2 "
            "first, so browsers would fetch the missing WOFF or TTF"
        )
        assert (folder / woff2[0]).is_file(), (
            f"{project_path(css_path)}: refers to {woff2[0]}, which is "
            f"missing from {project_path(folder)}/"
        )
    assert "://" not in css, (
        f"{project_path(css_path)}: refers to another host"
    )


# ----------------------------------------------------------------- themes


def test_offline_scss_removes_the_google_fonts_import():
    path = ROOT / OFFLINE_SCSS
    assert path.is_file(), f"{OFFLINE_SCSS} is missing"
    text = path.read_text(encoding="utf-8")
    defaults = text.split("/*-- scss:defaults --*/", 1)
    assert len(defaults) == 2, (
        f"{OFFLINE_SCSS}: no '/*-- scss:defaults --*/' section"
    )
    section = re.split(r"/\*-- scss:\w+ --\*/", defaults[1])[0]
    assert re.search(r"^\s*\$web-font-path:\s*false;", section, re.M), (
        f"{OFFLINE_SCSS}: its defaults section must set "
        "'$web-font-path: false;'"
    )


@pytest.mark.parametrize(
    ("mode", "theme"), [("light", "flatly"), ("dark", "darkly")]
)
def test_both_themes_layer_the_offline_scss(mode, theme):
    themes = html_format(QUARTO).get("theme")
    assert isinstance(themes, dict), (
        f"{QUARTO}: theme must have light and dark entries"
    )
    layers = themes.get(mode)
    assert isinstance(layers, list) and theme in layers, (
        f"{QUARTO}: theme: {mode}: must list {theme} with {OFFLINE_SCSS}"
    )
    assert OFFLINE_SCSS in layers, (
        f"{QUARTO}: theme: {mode}: does not layer {OFFLINE_SCSS}, so the "
        "page would import Google Fonts"
    )
    assert html_format(QUARTO).get("respect-user-color-scheme") is True, (
        f"{QUARTO}: respect-user-color-scheme should follow the reader's "
        "system setting"
    )


# -------------------------------------------------------------------- PDF


def test_pdf_of_the_book_via_typst_is_linked():
    config = load(QUARTO)
    formats = config.get("format", {})
    assert "typst" in formats, f"{QUARTO}: no typst format for the PDF"
    assert (formats["typst"] or {}).get("toc") is True, (
        f"{QUARTO}: the typst format should have toc: true"
    )
    downloads = config.get("book", {}).get("downloads", []) or []
    assert "pdf" in downloads, (
        f"{QUARTO}: book: downloads must include pdf to link the PDF"
    )
    assert "typst" not in downloads, (
        f"{QUARTO}: book: downloads: [typst] is rejected by Quarto; use pdf"
    )


# ------------------------------------------------------- accessibility


def test_axe_checks_only_in_the_dev_profile():
    assert "axe" in html_format(DEV_PROFILE), (
        f"{DEV_PROFILE}: format: html: axe: is not set"
    )
    assert "axe" not in html_format(QUARTO), (
        f"{QUARTO}: axe loads axe-core from a CDN; keep it in {DEV_PROFILE}"
    )


# -------------------------------------------------------------- explorers


@pytest.mark.parametrize("relative", OJS_LIBS)
def test_ojs_library_is_vendored_and_copied(relative):
    assert (ROOT / relative).is_file(), f"{relative} is missing"
    assert copied(relative), (
        f"{QUARTO}: project: resources does not copy {relative}"
    )


def explorer_modules() -> set[str]:
    """The site's own modules that the explorers' {ojs} cells import."""
    found = set()
    for relative in EXPLORERS:
        text = (ROOT / relative).read_text(encoding="utf-8")
        for module in re.findall(r'from "\./([\w.-]+\.js)"', text):
            found.add(f"chapters/{module}")
    return found


def test_explorer_modules_are_copied():
    modules = explorer_modules()
    assert FORMULAS in modules, f"no explorer imports {FORMULAS}"
    for module in sorted(modules):
        assert (ROOT / module).is_file(), f"{module} is missing"
        assert copied(module), (
            f"{QUARTO}: project: resources does not copy {module}"
        )


@pytest.mark.parametrize("relative", EXPLORERS)
def test_explorer_loads_everything_from_the_site(relative):
    path = ROOT / relative
    assert path.is_file(), f"{relative} is missing"
    divs = WEBSITE_DIV.findall(path.read_text(encoding="utf-8"))
    text = "\n".join(div for div in divs if "```{ojs}" in div)
    assert text, f'{relative}: wrap the explorer in a when-format="html" div'
    sources = re.findall(r'<script src="([^"]+)"', text)
    loaded = {project_path(path.parent / src) for src in sources}
    assert loaded >= set(OJS_LIBS), (
        f"{relative}: must load {', '.join(OJS_LIBS)} before its first "
        "{ojs} cell"
    )
    first_script = text.index("<script src=")
    assert first_script < text.index("```{ojs}"), (
        f"{relative}: the OJS libraries must load before the first cell"
    )
    assert re.search(r"^Inputs = window\.Inputs$", text, re.M), (
        f"{relative}: needs an ojs cell 'Inputs = window.Inputs' (Quarto's "
        "own Inputs comes from a CDN)"
    )
    cells = OJS_CELL.findall(text)
    assert cells, f"{relative}: no {{ojs}} cells"
    assert not any(re.search(r"\bmd`", cell) for cell in cells), (
        f"{relative}: `md` in an ojs cell loads from a CDN; use `html`"
    )
    if any(re.search(r"^import\b", cell, re.M) for cell in cells):
        # The runtime renders each import statement with md.
        assert re.search(r"^md = \(\.\.\.args\) =>", text, re.M), (
            f"{relative}: an ojs import renders itself with md, which loads "
            "from a CDN: add an ojs cell 'md = (...args) => ...' that wraps "
            "html(...args) in an element"
        )
    assert "://" not in text, f"{relative}: refers to another host"
    for module in re.findall(r'from "(\.[^"]+)"', text):
        target = path.parent / module
        assert target.is_file(), f"{relative}: imports {module}, missing"
        assert copied(project_path(target)), (
            f"{QUARTO}: project: resources does not copy "
            f"{project_path(target)}, which {relative} imports"
        )


def test_vendored_files_stay_small():
    folder = ROOT / "tools" / "site"
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert total < VENDORED_LIMIT, (
        f"tools/site/ holds {total:,} bytes, more than {VENDORED_LIMIT:,}"
    )


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "chapters").glob("*.qmd")) + [ROOT / "index.qmd"],
    ids=lambda path: path.name,
)
def test_ojs_cells_are_in_the_page_and_website_only(path):
    """Quarto counts a page's {ojs} blocks in the page's own file.

    A block that arrives through {{< include >}} makes it warn "OJS block
    count mismatch" (and tools/render.sh fail); a block outside a
    when-format="html" div would reach the PDF and the notebooks.
    """
    text = path.read_text(encoding="utf-8")
    for name in re.findall(r"\{\{< include ([^ ]+) >\}\}", text):
        included = (path.parent / name).read_text(encoding="utf-8")
        assert "```{ojs}" not in included, (
            f"{path.name} includes {name}, which has {{ojs}} cells: Quarto "
            "miscounts them; put the cells in the chapter itself"
        )
    inside = sum(
        len(OJS_CELL.findall(div)) for div in WEBSITE_DIV.findall(text)
    )
    assert inside == len(OJS_CELL.findall(text)), (
        f"{path.name}: an {{ojs}} cell outside a "
        '::: {.content-visible when-format="html"} div'
    )
