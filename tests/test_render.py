"""Render the whole book with Quarto, where Quarto is installed.

The render tests render a copy of the book once per edition, both formats
(website and PDF) as `bash tools/render.sh` does. The copy has the
committed _freeze/, so no chapter executes and a render takes tens of
seconds, not minutes (where a chapter's frozen results are stale, Quarto
executes it, and test_frozen_results_match_the_chapters fails anyway).
The rendered site is checked in a browser by tools/sitecheck/check.sh,
which CI runs on the render (and tests/test_sitecheck.py on planted
defects).
"""

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
from conftest import (
    RENDER_LEFT_OUT,
    ROOT,
    copy_book,
    quarto,
    render_left_out,
)

from tools import render_book
from tools.check import frozen as freeze
from tools.check import students as nbcheck
from tools.export.figures import same_picture
from tools.source import book as bookfiles
from tools.source import links, qmd
from tools.source import numbers as booknumbers

QUARTO = quarto()
needs_quarto = pytest.mark.skipif(
    QUARTO is None,
    reason=RENDER_LEFT_OUT
    if render_left_out()
    else "no Quarto (on PATH or in .venv): `bash tools/render.sh` installs "
    "the pinned one, or install it from quarto.org",
)
PDF = "The-Transformer-Block.pdf"
EDITIONS = {"student": "_book", "instructor": "_book-instructor"}


def render_copy(folder, profile=None):
    """Render a copy of the book in folder: (site folder, log, exit code).

    Both formats, side by side, as `bash tools/render.sh` renders them
    (tools/render_book.py).
    """
    copy = copy_book(folder / "book", whole=True)
    # Quarto executes the chapters with this Python, which has the book's
    # packages (as tools/render.sh does with .venv's).
    with mock.patch.dict(os.environ, {"QUARTO_PYTHON": sys.executable}):
        code, log = render_book.render(
            QUARTO, [profile] if profile else [], root=copy, echo=False
        )
    site = copy / EDITIONS[profile or "student"]
    return site, log, code


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The student edition rendered once: (book copy, log, exit code);
    a failed render fails every test that uses it."""
    site, log, code = render_copy(tmp_path_factory.mktemp("render"))
    assert code == 0, log[-4000:]
    return site.parent, log, code


@pytest.fixture(scope="module")
def instructor(tmp_path_factory):
    folder = tmp_path_factory.mktemp("render-instructor")
    return render_copy(folder, "instructor")


@needs_quarto
def test_book_renders_without_warnings(rendered):
    copy, log, _ = rendered
    warnings = render_book.warnings(log)
    assert not warnings, "\n".join(warnings)
    assert (copy / "_book" / "index.html").exists()


@needs_quarto
def test_instructor_edition_renders_without_warnings(instructor):
    site, log, code = instructor
    assert code == 0, log[-4000:]
    warnings = render_book.warnings(log)
    assert not warnings, "\n".join(warnings)
    assert (site / PDF).is_file(), f"{site.name}/{PDF} was not made"


@needs_quarto
def test_every_page_links_the_pdf(rendered):
    copy = rendered[0]
    site = copy / "_book"
    assert (site / PDF).is_file(), f"_book/{PDF} was not made"
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html":
            continue
        text = page.read_text(encoding="utf-8")
        assert re.search(rf'href="(\./|\.\./)?{PDF}"', text), (
            f"{page.relative_to(site)} has no link to {PDF}"
        )


def pdf_text(path, layout="-layout"):
    """pdftotext's text of path: laid out as on the page, or as asked."""
    result = subprocess.run(
        ["pdftotext", layout, str(path), "-"],
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


@needs_quarto
@pytest.mark.skipif(
    shutil.which("pdftotext") is None,
    reason="pdftotext (poppler-utils) is not installed",
)
def test_pdf_has_every_figure_and_equation_and_no_explorer(rendered):
    copy = rendered[0]
    pdf = copy / "_book" / PDF
    text = pdf_text(pdf)
    # pdfimages sees no image in Typst's PDF (they sit inside form
    # objects): each figure is found by its caption, which Typst prints
    # under the image.
    captions = set(re.findall(r"Figure (\d+\.\d+):", text))
    figures = [
        label
        for name in bookfiles.notebook_chapters(copy)
        for chunk in qmd.parse(copy / "chapters" / f"{name}.qmd").chunks()
        if str(label := chunk.options.get("label", "")).startswith("fig-")
    ]
    assert len(captions) >= len(figures), (
        f"{PDF} has {len(captions)} figure captions for {len(figures)} figures"
    )
    sources = [copy / "index.qmd", *sorted((copy / "chapters").glob("*.qmd"))]
    equations = [
        label
        for path in sources
        for label in re.findall(r"\{#(eq-[\w-]+)\}", path.read_text("utf-8"))
    ]
    numbers = re.findall(r"\((\d+\.\d+)\)", text)
    assert len(set(numbers)) >= len(equations), (
        f"{PDF} shows {len(set(numbers))} equation numbers for "
        f"{len(equations)} labelled equations"
    )
    # The explorers are website only: a sentence says so, no code shows.
    assert "interactive explorer" in text
    for code_only in ("Inputs.form", "viewof", "window.Inputs"):
        assert code_only not in text, f"{PDF} prints explorer code {code_only}"


@needs_quarto
def test_pdf_prints_no_folded_code(rendered):
    """Folded cells (figure code, self-check machinery) print one line."""
    copy = rendered[0]
    text = " ".join(pdf_text(copy / "_book" / PDF).split())
    chunks = [
        (name, chunk)
        for name in bookfiles.notebook_chapters(copy)
        for chunk in qmd.parse(copy / "chapters" / f"{name}.qmd").chunks()
    ]
    # Code a chapter shows may be folded where another copies it (the
    # training chapter copies maths-and-code's block).
    shown = "\n".join(c.source for _, c in chunks if not c.folded)
    for name, chunk in chunks:
        if not chunk.folded:
            continue
        body = [
            line.strip()
            for line in chunk.lines
            if not line.startswith("#|") and line.strip() not in shown
        ]
        longest = max(body, key=len, default="")
        if len(longest) > 20:
            assert longest not in text, (
                f"{PDF} prints folded code of chapters/{name}.qmd line "
                f"{chunk.line}: {longest!r}"
            )


@needs_quarto
def test_pdf_is_typeset_as_a_book(rendered):
    """What the book template and Typst did to the PDF, undone."""
    copy = rendered[0]
    pdf = copy / "_book" / PDF
    text = " ".join(pdf_text(pdf).split())
    # tools/site/pdf-style.typ: no full stop after a chapter's number.
    stray = re.findall(r"\b(?:Chapter \d+|Appendix [A-Z])\. [a-z]\w*", text)
    assert not stray, f"{PDF}: a full stop in {stray[:3]}"
    # pdf-style.typ: the preface's figure is unnumbered, as on the website.
    assert "Figure 0." not in text, f"{PDF} numbers a figure in chapter 0"
    # tools/site/pdf-apostrophe.lua: "Xiong et al. (2020)’s claim".
    assert not re.findall(r"\)‘s\b", text), f"{PDF}: ‘s after a citation"
    # pdf-apostrophe.lua: "query 3’s scores" (Typst made it a prime, 3′s).
    primed = re.findall(r"\w*\d′s\b", text)
    assert not primed, f"{PDF}: a prime for an apostrophe in {primed[:3]}"
    # Citeproc puts the list in the References chapter, before the
    # appendix, whose title then heads every page.
    # (The chapter's title, then its first entry.)
    listed = text.find("Attention Is All You Need")
    chapter = text.find("References Ainslie")
    assert 0 < chapter < listed < text.find("A. Teaching with", chapter)
    # Every exercise's title starts at the left of the text, beside its
    # bar (the template centred them, and their code lost its indent).
    for number, offset in exercise_title_offsets(pdf):
        assert offset < 25, f"{PDF}: exercise {number} is not left-aligned"
    # pdf-style.typ: each page but the title page shows its number once,
    # in the running header or, where that is empty, in the footer.
    pages = pdf_text(pdf).split("\f")[:-1]
    for number, page in enumerate(pages[1:], start=2):
        rows = [row.strip() for row in page.splitlines() if row.strip()]
        head = re.search(rf"(^{number}\b|\b{number}$)", rows[0])
        shown = bool(head) + (len(rows) > 1 and rows[-1] == str(number))
        assert shown == 1, f"{PDF}: page {number} shows its number {shown}x"
    # pdf-style.typ: an even page's header names a numbered chapter by its
    # own number ("Chapter 4. References" headed the References' second
    # page, an unnumbered chapter, as the Preface's pages are not).
    titles = running_titles(copy)
    for number, page in enumerate(pages, start=1):
        if number % 2:
            continue
        head = re.match(rf"{number}\s{{2,}}(\S.*)$", page.strip(), re.M)
        header = head[1] if head else None
        assert header is None or header in titles, (
            f"{PDF}: page {number}'s header reads {header!r}"
        )
    # pdf-operators.lua: "GELU(x)", not "GELU (x)", for every operator the
    # chapters write with \operatorname.
    for name in operator_names(copy):
        gap = re.search(rf"\b{name} \([\U0001D400-\U0001D7FF]", text)
        assert not gap, f"{PDF}: a space in {gap[0]!r}"
    # pdf-exercise.lua: no page ends with an exercise's kind line, its
    # text on the next page (Exercise 2.2's "Compute · 15 min" did).
    kind = re.compile(r"^[A-Z]\w* · \d+ min")
    for number, page in enumerate(pages, start=1):
        rows = [row.strip() for row in page.splitlines() if row.strip()]
        if rows and rows[-1] == str(number):
            rows.pop()
        assert not (rows and kind.match(rows[-1])), (
            f"{PDF}: page {number} ends with {rows[-1]!r}"
        )
    lines = pdf_lines(pdf)
    # pdf-style.typ: a term ("Read it.") on a line of its own, above its
    # description, not overlapping its first line.
    term = next(
        i for i, (_, _, text) in enumerate(lines) if text == "Read it."
    )
    (_, top, _), (_, below, _) = lines[term], lines[term + 1]
    assert below - top > 9, f"{PDF}: 'Read it.' overlaps its description"
    # tools/site/pdf-style.typ: an entry's second line hangs.
    first = next(
        i for i, (_, _, text) in enumerate(lines) if text.startswith("Ainslie")
    )
    assert lines[first + 1][0] - lines[first][0] > 10, (
        f"{PDF}: the references do not hang"
    )


def operator_names(root) -> set[str]:
    """The names the chapters write as \\operatorname{NAME}."""
    names = set()
    for path in (root / "chapters").glob("*.qmd"):
        text = path.read_text(encoding="utf-8")
        names.update(re.findall(r"\\operatorname\{(\w+)\}", text))
    return names


def running_titles(root) -> list[str]:
    """What an even page's header says in each numbered chapter:
    "Chapter 1. Intuition: ...", and "A. Teaching ..." in an appendix."""
    return [
        f"{'Chapter ' if c.number.isdigit() else ''}{c.number}. {c.title}"
        for c in booknumbers.load_book(root).chapters.values()
        if c.number
    ]


def pdf_lines(pdf) -> list[tuple[float, float, str]]:
    """(left, top, text) of each line of the PDF, page after page."""
    boxes = pdf_text(pdf, "-bbox-layout")
    line = re.compile(
        r'<line xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>(.*?)</line>', re.S
    )
    word = re.compile(r"<word [^>]*>([^<]*)</word>")
    return [
        (float(x), float(y), " ".join(word.findall(body)))
        for x, y, body in line.findall(boxes)
    ]


def exercise_title_offsets(pdf):
    """(number, points from the text's left edge) of each exercise title."""
    boxes = pdf_text(pdf, "-bbox")
    word = re.compile(r'<word xMin="([\d.]+)"[^>]*>([^<]*)</word>')
    found = []
    for page in boxes.split("<page ")[1:]:
        words = [(float(x), text) for x, text in word.findall(page)]
        # A section's number hangs in the margin, left of the text.
        text_left = min(
            (x for x, text in words if not re.fullmatch(r"[\d.]+", text)),
            default=0,
        )
        for k in range(len(words) - 2):
            (x, first), (_, number), (_, title) = words[k : k + 3]
            # "Exercise 5.1 (Title)", not prose that names an exercise.
            numbered = re.fullmatch(r"[\dA-Z]+\.\d+", number)
            if first == "Exercise" and numbered and title.startswith("("):
                found.append((number, x - text_left))
    assert found, f"{pdf.name} has no exercise title"
    return found


@needs_quarto
def test_site_loads_only_what_a_page_needs(rendered):
    """The post-render speed work reached every page of a real render."""
    copy = rendered[0]
    site = copy / "_book"
    libs = site / "site_libs" / "bootstrap"
    # The icon subset replaced Quarto's whole font (tools/site/prune_css.py).
    assert not (libs / "bootstrap-icons.woff").exists()
    assert (libs / "bootstrap-icons.woff2").stat().st_size < 4000
    # Bootstrap's stylesheets were pruned (about 500 KB each before).
    for sheet in libs.glob("bootstrap*.min.css"):
        assert sheet.stat().st_size < 250_000, sheet.name
    for page in sorted(site.rglob("*.html")):
        assert_finished(page.read_text(encoding="utf-8"), page.name)
    # Search results show maths as symbols (tools/site/search_text.py).
    index = (site / "search.json").read_text(encoding="utf-8")
    for tex in ("\\\\mathbb", "\\\\operatorname", "\\\\times"):
        assert tex not in index, f"search.json holds TeX: {tex}"


def assert_finished(text, name):
    """A page the post-render step finished (tools/site/postrender.py)."""
    head = text.split("</head>")[0]
    assert not re.search(r'<span id="cb\d+-\d+">', text), name
    assert not re.search(r'<a href="#cb\d+-\d+"', text), name
    if "sourceCode python" in text:
        assert '<span class="kw">' in text, name
    # Every code block has the size it takes while it is skipped.
    for block in re.findall(r'<div class="sourceCode\b[^>]*>', text):
        assert "--tb-lines:" in block, (name, block)
    assert not re.search(r'<script src="[^"]*"></script>', head), name
    if "quarto-search.js" in text:
        assert "data-tb-lazy-scripts" in text, name
    assert 'quarto-ojs-runtime.js"></script>' not in text, name
    assert 'pagination-link" aria-label' not in text, name
    assert "<table class=" not in text, name  # focusable
    assert not re.search(r'<img src="[^":]+\.(png|svg)" (?!width=)', text)
    # The fixed header's height set before the first paint, and a phone's
    # contents under the title, on every page with them.
    if 'id="quarto-header"' in text:
        assert "data-tb-header-offset" in text, name
    if 'class="anchored"' in text:  # AnchorJS's links written in
        assert '<a class="anchorjs-link ' in text, name
    if 'id="TOC"' in text:
        assert 'class="tb-phone-toc"' in text, name
    # Maths drawn at build time: no formula left for the browser to draw.
    assert not re.search(r'<span class="math (inline|display)">\\', text)
    # Its upright font fetched with the styles (tools/site/lazy.py).
    if 'class="katex"' in text:
        assert "KaTeX_Main-Regular.woff2" in head, name


# Quarto gives each cell of an executed notebook a random id.
CELL_ID = re.compile(r'<div id="[0-9a-f]{8}" class="cell"')
# And numbers its cells (an attribute no reader sees) one higher when it
# reads the notebook from Jupyter's cache, as the whole book's render does
# after a prose edit: the cached notebook's first cell, Quarto's own setup
# cell, is dropped without renumbering the rest (notebook.py in Quarto).
EXECUTION_COUNT = re.compile(r' data-execution_count="\d+"')


def executed_page(page: Path) -> str:
    text = CELL_ID.sub('<div class="cell"', page.read_text(encoding="utf-8"))
    return EXECUTION_COUNT.sub("", text)


@needs_quarto
def test_a_page_rendered_alone_is_finished(rendered, tmp_path):
    """One chapter's page, `bash tools/render.sh chapters/x.qmd --to html`.

    Quarto runs the post-render step for it too, so it is finished as the
    whole render's pages are. Its chapter is executed again, and the page
    is the one the whole render made from its frozen results.
    """
    copy = rendered[0]
    alone = tmp_path / "book"
    shutil.copytree(copy, alone, symlinks=True)
    shutil.rmtree(alone / ".jupyter_cache", ignore_errors=True)
    page = alone / "_book" / "chapters" / "mechanics.html"
    page.unlink()
    arguments = ["chapters/mechanics.qmd", "--to", "html"]
    command = [QUARTO, "render", *arguments]
    code, log = render_book.run(command, alone, echo=False)
    assert code == 0, log[-4000:]
    assert "Cell 1/" in log  # executed, not read from a cache
    assert_finished(page.read_text(encoding="utf-8"), page.name)
    book_page = copy / "_book" / "chapters" / "mechanics.html"
    assert executed_page(page) == executed_page(book_page)
    figures = Path("_book/chapters/mechanics_files/figure-html")
    drawn = sorted((alone / figures).iterdir())
    assert drawn, "no figures"
    for figure in drawn:
        same = copy / figures / figure.name
        assert same_picture(figure, same), figure.name


@needs_quarto
def test_student_site_contains_no_solution(rendered):
    """The rendered student pages and search index carry no answer (the
    one check of every student artefact, tools/check/students.py)."""
    copy, log, code = rendered
    assert code == 0, log[-4000:]
    problems = nbcheck.check_no_answers_for_students(copy)
    assert not problems, "\n".join(problems)


# Without Quarto: Quarto's frozen results (_freeze/) match the chapters.


def test_frozen_results_match_the_chapters():
    problems = freeze.stale(ROOT)
    assert not problems, "\n".join([*problems, freeze.FIX])


def test_freeze_check_finds_a_changed_chapter_and_missing_results(tmp_path):
    copy = copy_book(tmp_path / "book")
    shutil.copytree(ROOT / "_freeze", copy / "_freeze")
    assert freeze.stale(copy) == []
    chapter = copy / "chapters" / "mechanics.qmd"
    chapter.write_text(chapter.read_text("utf-8") + "\nOne more line.\n")
    (copy / "_freeze/chapters/systems/execute-results/typ.json").unlink()
    problems = freeze.stale(copy)
    assert problems == [
        "chapters/mechanics.qmd changed since its frozen results "
        "_freeze/chapters/mechanics/execute-results/html.json were made",
        "chapters/mechanics.qmd changed since its frozen results "
        "_freeze/chapters/mechanics/execute-results/typ.json were made",
        "chapters/systems.qmd: no frozen results "
        "_freeze/chapters/systems/execute-results/typ.json",
    ]


# ------------------------------------------------ notebook numbers vs site

SITE_XREF = re.compile(
    r'<a href="([^"]*)" class="quarto-xref"[^>]*>(.*?)</a>', re.S
)
SITE_NUMBERED = re.compile(
    r'<h[2-6][^>]*>\s*<span class="header-section-number">([^<]*)</span>'
    r"(.*?)</h[2-6]>"
    r"|<figcaption[^>]*>\s*((?:Figure|Table)&nbsp;[\w.]+):"
    r"|\\tag\{([^}]*)\}"
    r'|class="theorem-title"><strong>(Exercise [\w.]+)',
    re.S,
)
NOTEBOOK_LINK = re.compile(
    r"\[((?:Figure|Equation|Table|Section|Chapter|Appendix|Exercise) [\w.]+)\]"
    r"\((https?://[^)\s]+)\)"
)
NOTEBOOK_NUMBERED = re.compile(
    r"^#{2,6} (\d[\w.]*) (.*)$"
    r"|^\*\*((?:Figure|Table) [\w.]+):\*\*"
    r"|\\tag\{([^}]*)\}"
    r"|^\*\*(Exercise [\w.]+)\*\*",
    re.M,
)


def _plain(html_text: str) -> str:
    # Pandoc's typographic quotes; notebooks keep the source's straight ones.
    text = html.unescape(re.sub(r"<[^>]+>", "", html_text)).replace("’", "'")
    return " ".join(text.replace("\xa0", " ").split())


def website_numbers(site, name: str) -> tuple[dict, list]:
    """A rendered chapter page's cross-references (target -> text) and its
    numbered things in order (sections, captions, tags, exercises)."""
    page = (site / "chapters" / f"{name}.html").read_text("utf-8")
    refs = {}
    for href, text in SITE_XREF.findall(page):
        target = href if "/" in href else f"chapters/{href}"
        target = f"chapters/{name}.html{href}" if href[0] == "#" else target
        refs[target.replace("chapters/../", "")] = _plain(text)
    found = [
        _plain(" ".join(g for g in groups if g))
        for groups in SITE_NUMBERED.findall(page)
    ]
    return refs, found


def notebook_numbers(notebook, site_url: str) -> tuple[set, list]:
    """The same, read from a notebook's Markdown cells."""
    refs, found = set(), []
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        for text, url in NOTEBOOK_LINK.findall(cell.source):
            if url.startswith(site_url):
                refs.add((url.removeprefix(site_url), text))
        found += [
            " ".join(g for g in groups if g)
            for groups in NOTEBOOK_NUMBERED.findall(cell.source)
        ]
    return refs, found


@pytest.fixture(scope="module")
def website(request):
    """The rendered student site: `_book/` if it is newer than every
    source, else the module's own render."""
    root = bookfiles.ROOT
    index = root / "_book" / "index.html"
    sources = [root / "_quarto.yml", root / "references.bib"]
    sources += sorted((root / "chapters").glob("*.qmd"))
    if index.exists() and all(
        index.stat().st_mtime > path.stat().st_mtime for path in sources
    ):
        return root, root / "_book"
    copy, log, code = request.getfixturevalue("rendered")
    assert code == 0, log[-4000:]
    return copy, copy / "_book"


def number_differences(root, site) -> tuple[list[str], int]:
    """Where the student notebooks' numbers differ from the website's, and
    how many numbers were compared."""
    site_url = links.site_url(root)
    problems, compared = [], 0
    for name in bookfiles.notebook_chapters(root):
        path = bookfiles.notebook_path(root, name, "student")
        mine_refs, mine = notebook_numbers(nbcheck.read(path), site_url)
        site_refs, theirs = website_numbers(site, name)
        # Every reference the notebook makes, the page makes too (same
        # target, same text), and the same numbered things in order.
        for target, text in sorted(mine_refs):
            if site_refs.get(target) != text:
                problems.append(
                    f"{path.name}: '{text}' links to {target}, which the "
                    f"website calls {site_refs.get(target)!r}"
                )
        for ours, its in zip(mine, theirs, strict=False):
            if ours != its:
                problems.append(f"{path.name}: {ours!r}, website {its!r}")
        if len(mine) != len(theirs):
            problems.append(
                f"{path.name}: {len(mine)} numbered things, website "
                f"{len(theirs)}"
            )
        compared += len(mine_refs) + len(mine)
        problems += citation_differences(site, name, path)
    return problems, compared


SITE_CITATION = re.compile(r'<span class="citation"[^>]*>(.*?)</span>', re.S)
SITE_ENTRY = re.compile(
    r'<div id="ref-[^"]*" class="csl-entry"[^>]*>(.*?)</div>', re.S
)


def citation_differences(site, name: str, path) -> list[str]:
    """Citations and bibliography entries the notebook writes otherwise
    than the website: each citation as often, each entry word for word."""
    page = (site / "chapters" / f"{name}.html").read_text("utf-8")
    cells = [
        c.source for c in nbcheck.read(path).cells if c.cell_type == "markdown"
    ]
    references = cells[-1] if cells[-1].startswith("## References") else ""
    prose = "\n".join(cells[:-1] if references else cells)
    problems = []
    cited = [_plain(text) for text in SITE_CITATION.findall(page)]
    for text in sorted(set(cited)):
        if prose.count(text) != cited.count(text):
            problems.append(
                f"{path.name}: the website cites {text!r} "
                f"{cited.count(text)} times, the notebook {prose.count(text)}"
            )
    bibliography = (site / "chapters" / "references.html").read_text("utf-8")
    entries = {_plain(entry) for entry in SITE_ENTRY.findall(bibliography)}
    for entry in references.split("\n\n")[1:]:
        plain = re.sub(r"[*<>]", "", entry)
        if plain not in entries:
            problems.append(f"{path.name}: {plain!r} is not on the website")
    return problems


@needs_quarto
def test_notebook_numbers_match_the_website(website):
    problems, compared = number_differences(*website)
    assert not problems, "\n".join(problems)
    assert compared > 100, "test set-up: too few numbers compared"


@needs_quarto
def test_a_wrong_number_or_citation_is_caught(website, tmp_path):
    root, site = website
    copy = copy_book(tmp_path / "book")
    path = bookfiles.notebook_path(copy, "mechanics", "student")
    text = path.read_text("utf-8")
    assert "**Exercise 2.3**" in text and "[Figure 2.1](" in text
    text = text.replace("**Exercise 2.3**", "**Exercise 2.4**", 1)
    text = text.replace("[Figure 2.1](", "[Figure 2.2](", 1)
    text = text.replace("(Ba et al. 2016)", "(Ba, Kiros, and Hinton 2016)")
    path.write_text(text.replace("Hinton. 2016.", "Hinton. 2016a."))
    problems, _ = number_differences(copy, site)
    assert [p for p in problems if "'Figure 2.2' links to" in p]
    assert [p for p in problems if "'Exercise 2.4', website" in p]
    assert [p for p in problems if "cites '(Ba et al. 2016)'" in p]
    assert [p for p in problems if "2016a." in p and "not on the" in p]
