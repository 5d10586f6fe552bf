"""Worked solutions reach only the instructor edition.

The checks themselves run in test_book.py; these tests plant leaks in a
copy of the book and show that each check catches them.
"""

import nbformat
import pytest
from conftest import copy_book

from tools.check import lint as qmdcheck
from tools.check import outputs as outputcheck
from tools.export import notebook as convert
from tools.source import book as bookfiles
from tools.source import qmd

CHAPTER = "chapters/intuition.qmd"
NOTEBOOK = "intuition.ipynb"
EXERCISE = """
::: {#exr-planted}
## A planted exercise
*Explain · 5 min*

Why?
:::
"""
SOLUTION = """
::: {.content-visible when-profile="instructor"}
::: {.solution}
Because the planted solution explains it at length.

```{python}
solution_planted = "a distinctive planted solution string"
print(solution_planted)
```
:::
:::
"""


@pytest.fixture
def book(tmp_path):
    copy = copy_book(tmp_path / "book")
    return copy


def append(book, text):
    path = book / CHAPTER
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_guarded_solution_passes(book):
    append(book, EXERCISE + SOLUTION)
    assert not qmdcheck.check_solutions_guarded(book)
    assert not qmdcheck.check_every_exercise_has_a_solution(book)


def test_unguarded_solution_div_is_reported(book):
    unguarded = SOLUTION.replace(
        '::: {.content-visible when-profile="instructor"}\n', "", 1
    ).replace(":::\n:::\n", ":::\n", 1)
    append(book, EXERCISE + unguarded)
    problems = qmdcheck.check_solutions_guarded(book)
    assert [p for p in problems if CHAPTER in p and ".solution" in p]


def test_unguarded_solution_cell_is_reported(book):
    append(book, EXERCISE + SOLUTION + "\n```{python}\nsolution_x = 1\n```\n")
    problems = qmdcheck.check_solutions_guarded(book)
    assert [p for p in problems if CHAPTER in p and "solution_" in p]


def test_exercise_without_solution_is_reported(book):
    append(book, EXERCISE)
    problems = qmdcheck.check_every_exercise_has_a_solution(book)
    assert [p for p in problems if "exr-planted" in p]


def test_student_output_differing_from_instructor_is_reported(book):
    path = book / "notebooks" / "intuition.ipynb"
    notebook = nbformat.read(path, 4)
    cell = next(c for c in notebook.cells if c.get("outputs"))
    cell.outputs[0]["text"] = "something the instructor edition never said\n"
    nbformat.write(notebook, path)
    problems = outputcheck.check_editions_agree(book)
    assert [p for p in problems if "notebooks/intuition.ipynb" in p]


def test_closing_fences_in_both_editions_are_told_apart(book):
    # Each div below closes right after a code chunk, which leaves a stretch
    # of Markdown holding just `:::`: one public, one a solution. Neither
    # becomes a cell, and the editions still agree cell by cell.
    public = "\n::: {#exr-fenced}\n## Fenced\n\n```{python}\nx = 1\n```\n:::\n"
    solution = (
        '\n::: {.content-visible when-profile="instructor"}\nBecause.\n\n'
        "```{python}\nsolution_fenced = 2\n```\n:::\n"
    )
    append(book, public + "\n```{python}\ny = 2\n```\n" + solution)
    parsed = qmd.parse(book / CHAPTER)
    cells = convert.edition_cells(parsed)
    assert not [cell for cell, _ in cells if cell.source.strip() == ":::"]
    assert [
        secret for cell, secret in cells if "solution_fenced" in cell.source
    ] == [True]
    for edition in qmd.EDITIONS:
        path = bookfiles.notebook_path(book, "intuition", edition)
        nbformat.write(convert.to_notebook(parsed, edition), path)
    assert not outputcheck.check_editions_agree(book)
