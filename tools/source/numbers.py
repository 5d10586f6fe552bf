"""The numbers Quarto gives the book's chapters, sections and labels, as
`load_book(root)`: chapters in `_quarto.yml` order, appendices A, B, ...,
labels counted per chapter ("2.3"), instructor-only labels last. Quarto
numbers a book only inside a render; the notebooks are made without one
(tests/test_render.py compares the two)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tools.source import citations, links, qmd
from tools.source.book import book_parts, quarto_config

PREFIX = {
    "fig": "Figure",
    "eq": "Equation",
    "tbl": "Table",
    "sec": "Section",
    "exr": "Exercise",
}
KINDS = "|".join(PREFIX)
LABEL = re.compile(rf"#((?:{KINDS})-[\w-]*\w)")
ATTR_LABEL = re.compile(rf"\{{[^}}]*#((?:{KINDS})-[\w-]*\w)[^}}]*\}}")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(\{[^{}]*\})?\s*$")


@dataclass
class Target:
    kind: str
    number: str
    page: str
    anchor: str = ""
    title: str = ""

    def text(self) -> str:
        if self.kind == "sec" and not self.anchor:
            word = "Appendix" if self.number.isalpha() else "Chapter"
            return f"{word} {self.number}" if self.number else self.title
        if self.kind == "sec" and not self.number:
            return self.title
        return f"{PREFIX[self.kind]} {self.number}"


@dataclass
class Book:
    root: Path
    title: str
    site: str
    colab: str
    repo: str
    targets: dict[str, Target] = field(default_factory=dict)
    headings: dict[str, list[str]] = field(default_factory=dict)
    chapters: dict[str, Target] = field(default_factory=dict)
    works: dict[str, citations.Work] = field(default_factory=dict)

    def link(self, target: Target) -> str:
        anchor = f"#{target.anchor}" if target.anchor else ""
        return f"{self.site}{target.page}{anchor}"


_CACHE: dict = {}


def load_book(root: Path) -> Book:
    """The book's numbers, titles, links and works, cached (Pandoc is
    slow) while no file of the book changes."""
    root = Path(root).resolve()
    config = quarto_config(root)
    spec = config.get("book", {})
    files = book_parts(root)
    bibliography = root / config.get("bibliography", "references.bib")
    watched = [root / "_quarto.yml", bibliography]
    watched += [root / f for f, _ in files]
    stamp = tuple(
        (str(p), p.stat().st_mtime_ns, p.stat().st_size)
        for p in watched
        if p.exists()
    )
    if _CACHE.get(root, (None,))[0] == stamp:
        return _CACHE[root][1]
    book = Book(
        root,
        spec.get("title", ""),
        links.site_url(root),
        links.colab_url(root),
        links.repo_url(root),
    )
    numbers = {False: 0, True: 0}
    for relative, appendix in files:
        path = root / relative
        if path.suffix != ".qmd" or not path.exists():
            continue
        _scan(book, relative, qmd.parse(path), appendix, numbers)
    if bibliography.exists():
        book.works = citations.read(bibliography)
    _CACHE[root] = (stamp, book)
    return book


def _scan(book: Book, relative: str, parsed, appendix: bool, numbers) -> None:
    page = str(Path(relative).with_suffix(".html"))
    chapter = Target("sec", "", page)
    labels: list[tuple[bool, str]] = []  # (instructor-only, label)
    sections: list[int] = []
    book.headings[relative] = []
    depth = 0

    def section(level: str, title: str, attributes, labels) -> None:
        unnumbered = r"\.unnumbered|(?<!\S)-(?!\S)"
        numbered = not re.search(unnumbered, attributes or "")
        if level == "#":
            if numbered:
                numbers[appendix] += 1
                n = numbers[appendix]
                chapter.number = chr(64 + n) if appendix else str(n)
            chapter.title = title
            book.chapters[relative] = chapter
            book.headings[relative].append(chapter.number)
            book.targets.update(dict.fromkeys(labels, chapter))
            return
        number = ""
        if numbered and chapter.number:
            del sections[len(level) - 1 :]
            sections.extend([0] * (len(level) - 1 - len(sections)))
            sections[-1] += 1
            number = ".".join([chapter.number, *map(str, sections)])
        book.headings[relative].append(number)
        for label in labels:
            book.targets[label] = Target("sec", number, page, label, title)

    for part in parsed.parts:
        if part[0] == "code":
            label = str(part[1].options.get("label", ""))
            if label.startswith("fig-"):
                labels.append((part[1].solution, label))
            continue
        fence = None
        for line in part[1].split("\n"):
            fence, in_code = qmd.code_fence(line, fence)
            heading = HEADING.match(line)
            if in_code or heading and depth:
                continue  # code; a div's title, or a heading in a solution
            elif qmd.DIV_CLOSE.match(line):
                depth -= 1
            elif qmd.DIV_OPEN.match(line):
                depth += 1
                labels += [(part[3], label) for label in LABEL.findall(line)]
            elif heading:
                section(*heading.groups(), ATTR_LABEL.findall(line))
            else:
                found = ATTR_LABEL.findall(line)
                labels += [(part[3], label) for label in found]
    # Instructor-only labels are numbered last, so that both editions agree.
    counts: dict[str, int] = {}
    for _, label in sorted(labels, key=lambda found: found[0]):
        kind = label.split("-")[0]
        counts[kind] = counts.get(kind, 0) + 1
        number = f"{chapter.number}.{counts[kind]}".lstrip(".")
        book.targets[label] = Target(kind, number, page, label)
