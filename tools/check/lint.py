"""Checks of the book's `.qmd` sources, each `check(root) -> problems`.
Quarto checks references and citations only while it renders, and only
warns; ruff runs on the instructor notebooks.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat

from tools.export.markdown import CITE, XREF
from tools.source import book as bookfiles
from tools.source import citations
from tools.source.numbers import ATTR_LABEL, PREFIX
from tools.source.qmd import DIV_CLOSE, DIV_OPEN

CROSSREF = tuple(f"{kind}-" for kind in PREFIX)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
FENCED = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.S | re.M)
URL = re.compile(r"<?https?://\S+")
RUFF = re.compile(
    r"^(?: --> )?notebooks/instructor/([\w-]+)\.ipynb:cell (\d+):(\d+):\d+"
    r"(?:: (.*))?$",
    re.M,
)


def _lines(parsed: dict):
    """(file, line number, line) of every line of the prose, code blanked."""
    for relative, qmd in parsed.items():
        for part in qmd.parts:
            if part[0] == "markdown":
                text = blank_code(part[1])
                for offset, line in enumerate(text.split("\n")):
                    yield relative, part[2] + offset, line


def _found(parsed: dict, pattern: re.Pattern):
    """("file:line", match) of each match of pattern in the prose."""
    for relative, number, line in _lines(parsed):
        for match in pattern.finditer(line):
            yield f"{relative}:{number}", match


def blank_code(text: str) -> str:
    for pattern in (FENCED, INLINE_CODE, MATH, URL):
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text


def check_quarto_files(root: Path) -> list[str]:
    """Every `.qmd` parses (an unclosed fence or div is named), every file
    `_quarto.yml` lists is there, and every chapter is listed."""
    problems = bookfiles.parsed_book(root)[1]
    listed = [relative for relative, _ in bookfiles.book_parts(root)]
    for relative in listed:
        if not (root / relative).exists():
            problems.append(f"_quarto.yml: lists {relative}, which is missing")
    bibliography = bookfiles.quarto_config(root).get("bibliography")
    if bibliography and not (root / bibliography).exists():
        problems.append(f"_quarto.yml: bibliography {bibliography} is missing")
    for relative in bookfiles.chapter_files(root):
        if relative not in listed:
            problems.append(f"{relative}: not listed in _quarto.yml's book")
    if "index.qmd" not in listed:
        problems.append("_quarto.yml: index.qmd must be the first chapter")
    return problems


def check_crossrefs(root: Path) -> list[str]:
    parsed, problems = bookfiles.parsed_book(root)
    known = set()
    for qmd in parsed.values():
        known |= set(ATTR_LABEL.findall(qmd.prose()))
        known |= {str(chunk.options.get("label")) for chunk in qmd.chunks()}
    return problems + [
        f"{where}: @{match[2]}: no such label"
        for where, match in _found(parsed, XREF)
        if match[2][:1].lower() + match[2][1:] not in known
    ]


def check_citations(root: Path) -> list[str]:
    parsed, problems = bookfiles.parsed_book(root)
    bibliography = bookfiles.quarto_config(root).get(
        "bibliography", "references.bib"
    )
    keys = set(citations.KEY.findall((root / bibliography).read_text("utf-8")))
    return problems + [
        f"{where}: cites @{match[2]}, not in {bibliography}"
        for where, match in _found(parsed, CITE)
        if match[2] not in keys and not match[2].lower().startswith(CROSSREF)
    ]


def check_figure_cells(root: Path) -> list[str]:
    parsed, problems = bookfiles.parsed_book(root)
    for relative, qmd in parsed.items():
        for chunk in qmd.chunks():
            label = str(chunk.options.get("label", ""))
            where = f"{relative}:{chunk.line}"
            if label.startswith("fig-"):
                problems += [
                    f"{where}: figure '{label}' has no {option}"
                    for option in ("fig-cap", "fig-alt")
                    if not str(chunk.options.get(option, "")).strip()
                ]
            elif "plt.show()" in chunk.source:
                problems.append(f"{where}: a figure needs '#| label: fig-...'")
    return problems


def check_ruff(root: Path) -> list[str]:
    """`ruff check` and `ruff format --check` on the instructor notebooks
    (the chapters' code, check_notebooks_in_sync says), by chapter line."""
    problems = []
    for command in ("check --output-format=concise", "format --check"):
        ruff = [sys.executable, "-m", "ruff", *command.split(), "--no-cache"]
        result = subprocess.run(
            [*ruff, "notebooks/instructor"],
            cwd=root,
            capture_output=True,
            text=True,
        )
        for name, cell, row, message in RUFF.findall(result.stdout):
            path = bookfiles.notebook_path(root, name, "instructor")
            source = nbformat.read(path, 4).cells[int(cell) - 1].source
            text = (root / "chapters" / f"{name}.qmd").read_text("utf-8")
            # The chunk's opening line, by the code right after it.
            start = text.find(f"{{python}}\n{source}\n")
            line = text.count("\n", 0, start) + 1 + int(row)
            where = line if start >= 0 else f"cell {cell}"
            problems.append(
                f"chapters/{name}.qmd:{where}: ruff "
                + (message or "format: run `ruff format` on this code")
            )
    return problems


EXERCISE = re.compile(r"\{#(exr-[\w-]*\w)")
SOLUTION_CODE = re.compile(r"^(def|class)\s+solution_|^solution_\w*\s*=", re.M)
SOLUTION_DIV = re.compile(r"^:{3,}\s*\{[^}]*\.solution", re.M)


def check_solutions(root: Path) -> list[str]:
    """Every exercise has a solution before the next exercise, and no
    `.solution` div or `solution_...` name is outside an instructor-only
    div, where students would see it."""
    parsed, problems = bookfiles.parsed_book(root)
    for relative, qmd in parsed.items():
        unsolved = []  # exercises since the last solution
        for part in qmd.parts:
            code = part[0] == "code"
            if part[1].solution if code else part[3]:
                problems += [
                    f"{relative}: {label} has no solution"
                    for label in unsolved[:-1]
                ]
                unsolved = []
            elif code and SOLUTION_CODE.search(part[1].source):
                problems.append(
                    f"{relative}:{part[1].line}: code defining a "
                    "solution_... name is outside an instructor-only div"
                )
            elif not code:
                if SOLUTION_DIV.search(blank_code(part[1])):
                    problems.append(
                        f"{relative}:{part[2]}: a .solution div is outside "
                        "an instructor-only div, so students would see it"
                    )
                unsolved += EXERCISE.findall(part[1])
        problems += [
            f"{relative}: {label} has no solution" for label in unsolved
        ]
    return problems


def check_headings(root: Path) -> list[str]:
    """Headings go down one level at a time, for screen readers (titles
    inside divs are no headings of the page)."""
    parsed, problems = bookfiles.parsed_book(root)
    previous, depth = dict.fromkeys(parsed, 0), 0
    for relative, number, line in _lines(parsed):
        depth += bool(DIV_OPEN.match(line)) - bool(DIV_CLOSE.match(line))
        heading = re.match(r"(#{1,6}) \S", line)
        # Partials sit under a chapter's own headings.
        if heading and not depth and not relative.startswith("chapters/_"):
            level = len(heading[1])
            if level > previous[relative] + 1:
                problems.append(
                    f"{relative}:{number}: heading level {level} after "
                    f"{previous[relative]}"
                )
            previous[relative] = level
    return problems


SENTENCE_BREAK = re.compile(r"[a-z0-9)\]*_](?<!e\.g)(?<!i\.e)[.?!] +[A-Z(]")


def check_one_sentence_per_line(root: Path) -> list[str]:
    parsed, problems = bookfiles.parsed_book(root)
    for relative, number, line in _lines(parsed):
        # A list item's marker: a number, a letter, a bullet, a term's.
        body = re.sub(r"^\s*(\d+\.|[a-z]\.|[-*:])\s+", "", line)
        table_row = line.lstrip().startswith("|")
        if SENTENCE_BREAK.search(body) and not table_row:
            problems.append(f"{relative}:{number}: one sentence per line")
    return problems
