"""Checks of what a learner receives: no Quarto source, no answers.

- `check_no_quarto_syntax`: no notebook's Markdown shows Quarto's own
  syntax (`@fig-x`, `[@key]`, `:::`, `{#id}`, `{.class}`, `{{< >}}`,
  `^[...]`); tools/export/markdown.py translates all of them.
- `check_no_answers_for_students`: the one check that no solution reaches
  a learner, in every student artefact: the student notebooks, the
  assignments and, where the book is rendered, the student website's
  chapter pages and its search index. The answers are every line of a
  solution cell (code or prose), each run of seven words of a solution's
  prose, every line a solution prints and each value in it, and every
  front-matter value (its `prose-numbers` quote solutions' results). One
  is a leak where it occurs in the artefact but nowhere in what the
  chapter shows learners anyway: its public prose and code, the public
  cells' outputs, and the numbers, titles and citations of the book.
  A page is read as the text a screen reader gets: KaTeX's drawing of a
  formula (aria-hidden) is left out and its MathML reads as its TeX.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat

from tools.check.lint import blank_code
from tools.export import markdown as nbmarkdown
from tools.export import notebook as convert
from tools.source import book as bookfiles
from tools.source import qmd as qmd_module
from tools.source.numbers import load_book

QUARTO_SYNTAX = {
    "a cross-reference": nbmarkdown.XREF,
    "a citation": re.compile(r"\[[^\]\n]*-?@[\w]"),
    "a div fence": re.compile(r"^\s*(>\s*)?:{3,}", re.M),
    "an attribute": re.compile(r"\{[#.][^}\n]*\}|\{-\}"),
    "a shortcode": re.compile(r"\{\{<"),
    "a footnote": re.compile(r"\^\["),
}
# Front matter that only configures the website (generated links, kernel).
PUBLIC_FRONT_MATTER = ("jupyter", "other-links", "code-links")
VALUE = re.compile(r"\[[^\[\]]*\]|\([^()]*\)|-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?")
PHRASE = re.compile(r"[A-Za-z]+(?:[ ,]+[A-Za-z]+){6,}")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link"}
VOID |= {"meta", "source", "track", "wbr"}


def quarto_syntax(markdown: str) -> list[str]:
    """What Quarto syntax a Markdown text shows (code and maths left out)."""
    text = blank_code(markdown)
    found = []
    for name, pattern in QUARTO_SYNTAX.items():
        match = pattern.search(text)
        if match:
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{name} {match.group(0).strip()!r} (line {line})")
    return found


def check_no_quarto_syntax(root: Path) -> list[str]:
    """No notebook, either edition, shows Quarto's source syntax."""
    problems = []
    for name in bookfiles.notebook_chapters(root):
        for edition in qmd_module.EDITIONS:
            path = bookfiles.notebook_path(root, name, edition)
            if not path.exists():
                continue
            for number, cell in enumerate(read(path).cells):
                if cell.cell_type == "code":
                    continue
                for found in quarto_syntax(cell.source):
                    problems.append(
                        f"{path.relative_to(root)}: cell {number} shows "
                        f"Quarto's {found}; tools/export/markdown.py must "
                        f"translate it (run `{bookfiles.REGENERATE} {name}`)"
                    )
    return problems


def read(path: Path) -> nbformat.NotebookNode:
    """A notebook, read without nbformat's schema check (the sync and
    nbval tests read every notebook with it)."""
    return nbformat.v4.nbjson.reads(path.read_text(encoding="utf-8"))


def notebook_text(notebook) -> str:
    """Everything a notebook holds as text: sources, text outputs and
    metadata (images left out)."""
    pieces = [json.dumps(notebook.metadata)]
    for cell in notebook.cells:
        pieces += [cell.source, json.dumps(cell.metadata), *outputs(cell)]
    return "\n".join(pieces)


def outputs(cell) -> list[str]:
    texts = []
    for output in cell.get("outputs", []):
        texts.append(output.get("text", ""))
        for kind, data in output.get("data", {}).items():
            if kind.startswith("text/"):
                texts.append("".join(data))
    return texts


class PageText(HTMLParser):
    """A page's text as a screen reader gets it: no scripts or styles,
    nothing aria-hidden (KaTeX's drawing), a formula's MathML as its TeX
    (its `annotation`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.hidden = 0  # depth inside a left-out element
        self.maths = 0  # depth inside <math>
        self.tex = False

    def handle_starttag(self, tag, attrs) -> None:
        if tag in VOID:
            return
        if self.hidden:
            self.hidden += 1
        elif tag in ("script", "style") or ("aria-hidden", "true") in attrs:
            self.hidden = 1
        self.maths += tag == "math" or self.maths > 0
        self.tex = tag == "annotation"

    def handle_endtag(self, tag) -> None:
        if tag in VOID:
            return
        self.hidden = max(self.hidden - 1, 0)
        self.maths = max(self.maths - 1, 0)
        self.tex = False

    def handle_data(self, data) -> None:
        if not self.hidden and (not self.maths or self.tex):
            self.pieces.append(data)


def page_text(markup: str) -> str:
    parser = PageText()
    parser.feed(markup)
    return "".join(parser.pieces)


def student_texts(root: Path, name: str) -> dict[str, str]:
    """The student artefacts of chapter `name` but the website's pages
    (check_no_answers_for_students reads each page once), {where: text}."""
    found = {}
    for path in (
        bookfiles.notebook_path(root, name, "student"),
        root / "assignments" / f"{name}.ipynb",
    ):
        if path.exists():
            found[str(path.relative_to(root))] = notebook_text(read(path))
    page = f"chapters/{name}.html"
    site = root / "_book"
    if (site / "search.json").exists():
        index = json.loads((site / "search.json").read_text("utf-8"))
        entries = [e for e in index if e["href"].startswith(page)]
        where = f"_book/search.json ({page}){stale(root, name)}"
        found[where] = "\n".join(
            f"{e.get('title', '')}\n{e.get('section', '')}\n{e['text']}"
            for e in entries
        )
    return found


def stale(root: Path, name: str) -> str:
    """A hint where the rendered site is older than the chapter, or ''."""
    page = root / "_book" / "chapters" / f"{name}.html"
    chapter = root / "chapters" / f"{name}.qmd"
    if page.exists() and page.stat().st_mtime < chapter.stat().st_mtime:
        return " (older than its chapter: `bash tools/render.sh` again)"
    return ""


def answers(root: Path, name: str) -> dict[str, str]:
    """Every answer of chapter `name`, each with where it comes from."""
    found: dict[str, str] = {}
    for number, cell in flagged_cells(root, name, solutions=True):
        for line in cell.source.split("\n"):
            found.setdefault(line.strip(), f"solution cell {number}")
        if cell.cell_type == "markdown":
            for phrase in PHRASE.findall(cell.source):
                found.setdefault(" ".join(phrase.split()), "solution prose")
        for text in outputs(cell):
            for line in text.split("\n"):
                where = f"output of solution cell {number}"
                found.setdefault(line.strip(), where)
                for value in VALUE.findall(line):
                    found.setdefault(value, where)
                found.setdefault(line.rpartition(": ")[2].strip(), where)
    metadata = qmd_module.parse(root / "chapters" / f"{name}.qmd").metadata
    for key in set(metadata) - set(PUBLIC_FRONT_MATTER):
        for value in leaves(metadata[key]):
            found.setdefault(value, f"front matter '{key}'")
    found.pop("", None)
    return found


def flagged_cells(root: Path, name: str, solutions: bool) -> list:
    """(number, cell) of the instructor notebook's solution cells, or of
    its other cells; which is which is known from the chapter."""
    path = bookfiles.notebook_path(root, name, "instructor")
    if not path.exists():
        return []
    parsed = qmd_module.parse(root / "chapters" / f"{name}.qmd")
    flags = [secret for _, secret in convert.edition_cells(parsed)]
    cells = zip(read(path).cells, flags, strict=False)
    return [
        (number, cell)
        for number, (cell, secret) in enumerate(cells)
        if secret == solutions
    ]


def leaves(value) -> list[str]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    return [str(value).strip()]


def public_text(root: Path, name: str) -> str:
    """What chapter `name` shows learners anyway, made without the
    converter: its public prose and code, the outputs of its public cells
    (as the instructor edition records them: a student output never
    vouches for itself), and the book's numbers, titles, citations and
    links."""
    parsed = qmd_module.parse(root / "chapters" / f"{name}.qmd")
    book = load_book(root)
    pieces = [parsed.prose("student")]
    pieces += [chunk.source for chunk in parsed.chunks() if not chunk.solution]
    for _, cell in flagged_cells(root, name, solutions=False):
        pieces += outputs(cell)
    for target in book.targets.values():
        pieces += [target.text(), target.number, book.link(target)]
    for work in book.works.values():
        pieces += [work.cited, work.narrative, work.year, work.reference]
    pieces += nbmarkdown.Chapter(book, parsed.path).title_block("")
    return "\n".join(pieces)


def occurs(needle: str, haystack: str) -> bool:
    """`needle` in `haystack`, not as part of a longer word or number."""
    start = haystack.find(needle)
    while start >= 0:
        before = haystack[start - 1 : start]
        after = haystack[start + len(needle) : start + len(needle) + 2]
        joined_before = (
            needle[0].isalnum() and before != "" and before in "._"
        ) or (needle[0].isalnum() and before.isalnum())
        joined_after = needle[-1].isalnum() and (
            after[:1].isalnum()
            or after[:1] == "_"
            or (after[:1] == "." and after[1:2].isdigit())
        )
        if not joined_before and not joined_after:
            return True
        start = haystack.find(needle, start + 1)
    return False


def check_no_answers_for_students(root: Path) -> list[str]:
    """No solution's answer, and nothing of the front matter, reaches a
    student notebook, an assignment or the student website. Every other
    page of the website is read for the chapter's longer answers (seven
    words or more), which no other page can show by chance."""
    problems = []
    pages = {}  # {where: (its text, the same with its spaces folded)}
    for path in sorted((root / "_book").glob("**/*.html")):
        text = page_text(path.read_text(encoding="utf-8"))
        pages[f"_book/{path.relative_to(root / '_book')}"] = (
            text,
            " ".join(text.split()),
        )
    for name in bookfiles.notebook_chapters(root):
        secrets = answers(root, name)
        public = public_text(root, name)
        own = f"_book/chapters/{name}.html"
        texts = {
            where: (text, " ".join(text.split()))
            for where, text in student_texts(root, name).items()
        }
        for where, read_once in pages.items():
            texts[where + stale(root, name) if where == own else where] = (
                read_once
            )
        for where, (text, folded) in texts.items():
            another_page = where in pages and where != own
            problems += [
                f"{where}: an answer from chapters/{name}.qmd reaches "
                f"learners: {secret!r} ({source})"
                for secret, source in sorted(secrets.items())
                if (len(secret.split()) >= 7 or not another_page)
                and (occurs(secret, text) or occurs(secret, folded))
                and not occurs(secret, public)
            ]
    return problems
