"""Checks of what a learner receives: no Quarto source, no answers.

- `check_no_quarto_syntax`: no notebook's Markdown shows Quarto's own
  syntax (a cross-reference `@fig-x`, a citation `[@key]`, a div fence
  `:::`, an attribute `{#id}` or `{.class}`, a shortcode `{{< >}}`);
  tools/export/markdown.py translates all of them.
- `check_no_answers_for_students`: no answer reaches a file a learner
  receives, by any route. The answers are every string a worked solution
  prints (each output line and each value in it, whatever its length),
  every line of a solution cell, and every value of the chapter's front
  matter (its `prose-numbers` name solution cells and quote their
  results). One is a leak where it occurs in the learner's file but
  nowhere in what the chapter shows learners anyway: its public prose and
  code, the public cells' outputs, and the numbers, titles and citations
  the book's structure gives.

Which files a learner receives is `STUDENT_FILES`, a list of functions
`root -> [(chapter name, path)]`; another builder of handouts (assignments)
appends its own, and the same check covers them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat

from tools.export import markdown as nbmarkdown
from tools.export import notebook as convert
from tools.source import book as bookfiles
from tools.source import qmd as qmd_module

QUARTO_SYNTAX = {
    "a cross-reference": nbmarkdown.XREF,
    "a citation": re.compile(r"\[[^\]\n]*-?@[\w]"),
    "a div fence": re.compile(r"^\s*(>\s*)?:{3,}", re.M),
    "an attribute": re.compile(r"\{[#.][^}\n]*\}|\{-\}"),
    "a shortcode": re.compile(r"\{\{<"),
    "a footnote": re.compile(r"\^\["),
}
CODE = re.compile(
    r"^(`{3,}|~{3,}).*?^\1[ \t]*$|(`+)(?:(?!\2).)+?\2", re.S | re.M
)
# Front matter that only configures the website (generated links, kernel).
PUBLIC_FRONT_MATTER = ("jupyter", "other-links", "code-links")
VALUE = re.compile(r"\[[^\[\]]*\]|\([^()]*\)|-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?")


def student_notebooks(root: Path) -> list[tuple[str, Path]]:
    return [
        (name, bookfiles.notebook_path(root, name, "student"))
        for name in bookfiles.notebook_chapters(root)
    ]


def assignment_notebooks(root: Path) -> list[tuple[str, Path]]:
    """The graded assignments (tools/assignments.py), where they exist."""
    return [
        (name, root / "assignments" / f"{name}.ipynb")
        for name in bookfiles.notebook_chapters(root)
    ]


STUDENT_FILES = [student_notebooks, assignment_notebooks]


def quarto_syntax(markdown: str) -> list[str]:
    """What Quarto syntax a Markdown text shows (code spans left out)."""
    text = CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), markdown)
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


def notebook_text(notebook) -> str:
    """Everything a notebook holds as text: sources, text outputs and
    metadata (images left out)."""
    pieces = [json.dumps(notebook.metadata)]
    for cell in notebook.cells:
        pieces += [cell.source, json.dumps(cell.metadata)]
        pieces += _output_texts(cell)
    return "\n".join(pieces)


def _output_texts(cell) -> list[str]:
    texts = []
    for output in cell.get("outputs", []):
        texts.append(output.get("text", ""))
        for kind, data in output.get("data", {}).items():
            if kind.startswith("text/"):
                texts.append("".join(data))
    return texts


def answers(root: Path, name: str) -> dict[str, str]:
    """Every answer of chapter `name`, each with where it comes from."""
    parsed = qmd_module.parse(root / "chapters" / f"{name}.qmd")
    found: dict[str, str] = {}
    for number, cell in _instructor_cells(root, name, solutions=True):
        for line in cell.source.split("\n"):
            found.setdefault(line.strip(), f"solution cell {number}")
        for text in _output_texts(cell):
            for line in text.split("\n"):
                where = f"output of solution cell {number}"
                found.setdefault(line.strip(), where)
                for value in VALUE.findall(line):
                    found.setdefault(value, where)
                found.setdefault(line.rpartition(": ")[2].strip(), where)
    metadata = parsed.metadata
    for key in set(metadata) - set(PUBLIC_FRONT_MATTER):
        for value in _leaves(metadata[key]):
            found.setdefault(value, f"front matter '{key}'")
    found.pop("", None)
    return found


def _instructor_cells(root: Path, name: str, solutions: bool) -> list:
    """(number, cell) of the instructor notebook's solution cells, or of
    its other cells; which is which is known from the chapter."""
    return [
        (number, cell)
        for number, cell, secret in _flagged_cells(root, name)
        if secret == solutions
    ]


_FLAGGED: dict = {}


def _flagged_cells(root: Path, name: str) -> list:
    """(number, cell, is a solution) of the instructor notebook, read once
    while neither it nor its chapter changes."""
    chapter = root / "chapters" / f"{name}.qmd"
    path = bookfiles.notebook_path(root, name, "instructor")
    if not path.exists():
        return []
    stamp = tuple(
        (p.stat().st_mtime_ns, p.stat().st_size) for p in (chapter, path)
    )
    if _FLAGGED.get(path, (None,))[0] != stamp:
        parsed = qmd_module.parse(chapter)
        flags = [secret for _, secret in convert.edition_cells(parsed)]
        cells = read(path).cells
        flagged = [
            (number, cell, secret)
            for number, (cell, secret) in enumerate(
                zip(cells, flags, strict=False)
            )
        ]
        _FLAGGED[path] = (stamp, flagged)
    return _FLAGGED[path][1]


def _leaves(value) -> list[str]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [str(value).strip()]


def public_text(root: Path, name: str) -> str:
    """What chapter `name` shows learners anyway, made without the
    converter: its public prose and code, the outputs of its public cells,
    and the book's numbers, titles, citations and links."""
    parsed = qmd_module.parse(root / "chapters" / f"{name}.qmd")
    book = nbmarkdown.load_book(root)
    pieces = [parsed.prose("student")]
    pieces += [chunk.source for chunk in parsed.chunks() if not chunk.solution]
    # Public outputs as the instructor edition records them (the editions
    # check keeps the student's equal): a student output never vouches for
    # itself.
    for _, cell in _instructor_cells(root, name, solutions=False):
        pieces += _output_texts(cell)
    for target in book.targets.values():
        pieces += [target.text(), target.number, book.link(target)]
    for work in book.works.values():
        pieces += [work.cited, work.narrative, work.year, work.reference]
    chapter = nbmarkdown.Chapter(book, parsed.path)
    pieces += chapter.title_block("")
    return "\n".join(pieces)


def leaks(text: str, secrets: dict[str, str], public: str) -> list[str]:
    """Each secret in `text` that `public` does not also contain."""
    return [
        f"{secret!r} ({where})"
        for secret, where in sorted(secrets.items())
        if _occurs(secret, text) and not _occurs(secret, public)
    ]


def _occurs(needle: str, haystack: str) -> bool:
    """`needle` in `haystack`, not as part of a longer word or number."""
    start = haystack.find(needle)
    while start >= 0:
        before = haystack[start - 1 : start] if start else ""
        after = haystack[start + len(needle) : start + len(needle) + 2]
        joined_before = (
            needle[0].isalnum()
            and (before.isalnum() or before in "._")
            and before != ""
        )
        joined_after = needle[-1].isalnum() and (
            after[:1].isalnum()
            or after[:1] == "_"
            or (after[:1] == "." and after[1:2].isdigit())
        )
        if not joined_before and not joined_after:
            return True
        start = haystack.find(needle, start + 1)
    return False


def read(path: Path) -> nbformat.NotebookNode:
    """A notebook, read without nbformat's schema check (the sync and
    nbval tests read every notebook with it)."""
    return nbformat.v4.nbjson.reads(path.read_text(encoding="utf-8"))


def check_no_answers_for_students(root: Path) -> list[str]:
    """No solution's answer, and nothing of the front matter, reaches a
    file a learner receives."""
    problems = []
    for files in STUDENT_FILES:
        for name, path in files(root):
            problems += answers_in(root, name, path)
    return problems


def answers_in(root: Path, name: str, path: Path) -> list[str]:
    """The answers of chapter `name` that file `path` gives away."""
    if not path.exists():
        return []
    if path.suffix == ".ipynb":
        text = notebook_text(read(path))
    else:
        text = path.read_text(encoding="utf-8")
    return [
        f"{path.relative_to(root)}: an answer from chapters/{name}.qmd "
        f"reaches learners: {leak}"
        for leak in leaks(text, answers(root, name), public_text(root, name))
    ]


CHECKS = [check_no_quarto_syntax, check_no_answers_for_students]
