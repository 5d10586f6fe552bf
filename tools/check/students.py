"""Checks of what a learner receives: no Quarto syntax in a notebook, and
the one check that no answer reaches a student notebook, an assignment or
the student website. An answer is any line of a solution cell, seven words
of a solution's prose, a line or value a solution prints, a front-matter
value; it leaks where it is found in an artefact but not in what the
chapter shows learners anyway (STYLE.md, "Notebooks read like the book").
A page is read as a screen reader gets it, with the standard library's
HTMLParser (BeautifulSoup does the same five times slower).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from tools.check.lint import blank_code
from tools.check.outputs import flagged_cells, notebooks, output_texts, read
from tools.export import markdown as nbmarkdown
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
    text = blank_code(markdown)
    found = []
    for name, pattern in QUARTO_SYNTAX.items():
        if match := pattern.search(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{name} {match.group(0).strip()!r} (line {line})")
    return found


def check_no_quarto_syntax(root: Path) -> list[str]:
    problems = []
    for name, path, notebook in notebooks(root, qmd_module.EDITIONS):
        for number, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                continue
            for found in quarto_syntax(cell.source):
                problems.append(
                    f"{path}: cell {number} shows Quarto's {found}; "
                    "tools/export/markdown.py must translate it (run "
                    f"`{bookfiles.REGENERATE} {name}`)"
                )
    return problems


class PageText(HTMLParser):
    """No scripts or styles, nothing aria-hidden (KaTeX's drawing), and a
    formula's MathML as its TeX (its `annotation`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.open = ["shown"]  # each open element's text: shown, maths, hidden

    def handle_starttag(self, tag, attrs) -> None:
        if tag in VOID:
            return
        text = self.open[-1]  # as its parent's, unless:
        if tag in ("script", "style") or ("aria-hidden", "true") in attrs:
            text = "hidden"
        elif tag == "math" and text == "shown":
            text = "maths"
        elif tag == "annotation" and text == "maths":
            text = "shown"
        self.open.append(text)

    def handle_endtag(self, tag) -> None:
        if tag not in VOID and len(self.open) > 1:
            self.open.pop()

    def handle_data(self, data) -> None:
        if self.open[-1] == "shown":
            self.pieces.append(data)


def student_texts(root: Path, name: str) -> dict[str, str]:
    """{where: text} of the chapter's student artefacts but web pages."""
    found = {}
    for path in (
        bookfiles.notebook_path(root, name, "student"),
        root / "assignments" / f"{name}.ipynb",
    ):
        if path.exists():
            notebook = read(path)
            pieces = [json.dumps(notebook.metadata)]
            for cell in notebook.cells:
                pieces += [cell.source, json.dumps(cell.metadata)]
                pieces += output_texts(cell)
            found[str(path.relative_to(root))] = "\n".join(pieces)
    page, search = f"chapters/{name}.html", root / "_book" / "search.json"
    if search.exists():
        index = json.loads(search.read_text("utf-8"))
        entries = [e for e in index if e["href"].startswith(page)]
        where = f"_book/search.json ({page}){stale(root, name)}"
        found[where] = "\n".join(
            f"{e.get('title', '')}\n{e.get('section', '')}\n{e['text']}"
            for e in entries
        )
    return found


def stale(root: Path, name: str) -> str:
    page = root / "_book" / "chapters" / f"{name}.html"
    chapter = root / "chapters" / f"{name}.qmd"
    if page.exists() and page.stat().st_mtime < chapter.stat().st_mtime:
        return " (older than its chapter: `bash tools/render.sh` again)"
    return ""


def answers(root: Path, name: str) -> dict[str, str]:
    """{answer: where it comes from} of chapter `name`."""
    found: dict[str, str] = {}
    for number, cell in flagged_cells(root, name, solutions=True):
        for line in cell.source.split("\n"):
            found.setdefault(line.strip(), f"solution cell {number}")
        if cell.cell_type == "markdown":
            for phrase in PHRASE.findall(cell.source):
                found.setdefault(" ".join(phrase.split()), "solution prose")
        for text in output_texts(cell):
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


def leaves(value) -> list[str]:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    return [str(value).strip()]


def public_text(root: Path, name: str) -> str:
    """What chapter `name` shows learners anyway, made without the
    converter: public prose and code, the instructor edition's outputs of
    public cells (a student output never vouches for itself), the book's
    numbers, titles, citations and links."""
    parsed = qmd_module.parse(root / "chapters" / f"{name}.qmd")
    book = load_book(root)
    pieces = [parsed.prose("student")]
    pieces += [chunk.source for chunk in parsed.chunks() if not chunk.solution]
    for _, cell in flagged_cells(root, name, solutions=False):
        pieces += output_texts(cell)
    for target in book.targets.values():
        pieces += [target.text(), target.number, book.link(target)]
    for work in book.works.values():
        pieces += [work.cited, work.narrative, work.year, work.reference]
    pieces += nbmarkdown.Chapter(book, parsed.path).title_block("")
    return "\n".join(pieces)


def occurs(needle: str, haystack: str) -> bool:
    """`needle` in `haystack`, not inside a longer word or number."""
    if needle not in haystack:
        return False  # the usual case, without a pattern to compile
    before = r"(?<![\w.])" if needle[0].isalnum() else ""
    after = r"(?![\w]|\.\d)" if needle[-1].isalnum() else ""
    return bool(re.search(before + re.escape(needle) + after, haystack))


def check_no_answers_for_students(root: Path) -> list[str]:
    """Other pages of the website are searched for longer answers only
    (seven words or more), which no other page can show by chance."""

    def searched(text: str) -> str:
        return text + "\n" + " ".join(text.split())  # and its spaces folded

    problems, pages = [], {}
    for path in sorted((root / "_book").glob("**/*.html")):
        page = PageText()
        page.feed(path.read_text(encoding="utf-8"))
        pages[str(path.relative_to(root))] = searched("".join(page.pieces))
    for name in bookfiles.notebook_chapters(root):
        public = public_text(root, name)
        secrets = answers(root, name)
        unshown = [s for s in sorted(secrets) if not occurs(s, public)]
        own = f"_book/chapters/{name}.html"
        found = student_texts(root, name)
        texts = {where: searched(text) for where, text in found.items()}
        for where, text in {**texts, **pages}.items():
            another_page = where in pages and where != own
            shown = where + stale(root, name) if where == own else where
            problems += [
                f"{shown}: an answer from chapters/{name}.qmd reaches "
                f"learners: {secret!r} ({secrets[secret]})"
                for secret in unshown
                if (len(secret.split()) >= 7 or not another_page)
                and occurs(secret, text)
            ]
    return problems
