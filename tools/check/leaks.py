"""Student files must not hold a solution's code or printed text.

    python tools/check/leaks.py   # prints every leak; exit 1 if there is one

For each chapter with graded exercises, the lines that only its
instructor-only cells contain or print (tools/assignments.py hides the
same cells) must appear in none of the student files: the student notebook
`notebooks/<chapter>.ipynb`, the assignment `assignments/<chapter>.ipynb`,
and, once the book is rendered, the student website's page
`_book/chapters/<chapter>.html`.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat

from tools.export import notebook as convert
from tools.export.graded import graded_chapters
from tools.source import qmd
from tools.source.book import ROOT


def solution_traces(name: str, root: Path = ROOT) -> list[str]:
    """Lines only a solution has: its distinctive code and printed text.

    Code lines of the instructor-only cells (solutions, hidden tests) and
    lines those cells print in the instructor notebook, of 12 characters
    or more, that no public cell of the chapter contains or prints.
    """
    parsed = qmd.parse(root / "chapters" / f"{name}.qmd")
    instructor = nbformat.read(
        root / "notebooks" / "instructor" / f"{name}.ipynb", 4
    )
    public, secret = [], []
    cells = zip(convert.edition_cells(parsed), instructor.cells, strict=True)
    for (_, is_secret), cell in cells:
        text = [cell.source]
        for output in cell.get("outputs", []):
            text.append(output.get("text", ""))
            text.append(output.get("data", {}).get("text/plain", ""))
        (secret if is_secret else public).append("\n".join(text))
    seen = "\n".join(public)
    traces = set()
    for text in secret:
        for line in text.split("\n"):
            line = line.strip()
            if len(line) >= 12 and line not in seen and "#|" not in line:
                traces.add(line)
    return sorted(traces)


def student_artefacts(name: str, root: Path = ROOT) -> dict[str, str]:
    """Every student file of a chapter, as {path: its visible text}."""
    found = {}
    for path in [
        root / "notebooks" / f"{name}.ipynb",
        root / "assignments" / f"{name}.ipynb",
    ]:
        if path.exists():
            # Notebook JSON escapes quotes and backslashes; read the cells.
            notebook = nbformat.read(path, 4)
            found[str(path.relative_to(root))] = "\n".join(
                [cell.source for cell in notebook.cells]
                + [str(cell.get("outputs", "")) for cell in notebook.cells]
                + [str(notebook.metadata)]
            )
    page = root / "_book" / "chapters" / f"{name}.html"
    if page.exists():
        markup = page.read_text(encoding="utf-8")
        found[str(page.relative_to(root))] = html.unescape(
            re.sub(r"<[^>]+>", "", markup)
        )
    return found


def check_no_solution_leaks(root: Path = ROOT) -> list[str]:
    """Problems: a solution's code or printed line in a student file."""
    problems = []
    for name in graded_chapters(root):
        traces = solution_traces(name, root)
        for path, content in student_artefacts(name, root).items():
            leaked = [line for line in traces if line in content]
            if leaked:
                problems.append(
                    f"{path}: contains solution text from chapters/"
                    f"{name}.qmd: {leaked[0]!r}{stale(root, path, name)}"
                )
    return problems


def stale(root: Path, path: str, name: str) -> str:
    """A hint when a rendered page is older than its chapter, or ''."""
    chapter = root / "chapters" / f"{name}.qmd"
    if path.endswith(".html") and (
        (root / path).stat().st_mtime < chapter.stat().st_mtime
    ):
        return (
            f" ({path} is older than chapters/{name}.qmd: render the book "
            "again, `bash tools/render.sh`)"
        )
    return ""


if __name__ == "__main__":
    found = check_no_solution_leaks()
    print("\n".join(found) or "no solution text in any student file")
    raise SystemExit(1 if found else 0)
