"""What learners receive: no Quarto syntax, no answers
(tools/check/notebooks.py).

The book passes both checks (test_book.py); here each is shown to fail on
a planted leak in a copy of the book, naming the file.
"""

import nbformat
import pytest
from conftest import copy_book

from tools.check import notebooks as nbcheck
from tools.export import notebook as convert
from tools.source import book as bookfiles
from tools.source import qmd

CHAPTER = "intuition"


@pytest.fixture
def book(tmp_path):
    return copy_book(tmp_path / "book")


def student_leaks(book):
    """What the check finds in the chapter's student notebook."""
    path = bookfiles.notebook_path(book, CHAPTER, "student")
    return nbcheck.answers_in(book, CHAPTER, path)


def notebook(book, edition="student"):
    path = bookfiles.notebook_path(book, CHAPTER, edition)
    return path, nbformat.read(path, 4)


def add_markdown(book, text, edition="student"):
    path, student = notebook(book, edition)
    student.cells.append(nbformat.v4.new_markdown_cell(text))
    nbformat.write(student, path)


@pytest.mark.parametrize(
    "planted, kind",
    [
        ("As @fig-prenorm-block shows.", "a cross-reference"),
        ("As shown [@vaswani2017attention].", "a citation"),
        ("As shown [see @ba2016layer, p. 2].", "a citation"),
        ("::: {.callout-note}\nA note.\n:::", "a div fence"),
        ("> ::: {.callout-tip}", "a div fence"),
        ("## A section {#sec-planted}", "an attribute"),
        ("## Further reading {.unnumbered}", "an attribute"),
        ("{{< include _explorer-costs.qmd >}}", "a shortcode"),
        ("A note.^[Said in passing.]", "a footnote"),
        ("As @Fig-prenorm-block shows.", "a cross-reference"),
    ],
)
def test_each_kind_of_quarto_syntax_is_found(planted, kind):
    found = nbcheck.quarto_syntax(f"Some prose.\n\n{planted}")
    assert [f for f in found if f.startswith(kind)], found


@pytest.mark.parametrize("edition", qmd.EDITIONS)
def test_quarto_syntax_in_a_notebook_is_reported(book, edition):
    add_markdown(book, "Some prose, as @fig-prenorm-block shows.", edition)
    problems = nbcheck.check_no_quarto_syntax(book)
    path = bookfiles.notebook_path(book, CHAPTER, edition)
    relative = str(path.relative_to(book))
    assert [p for p in problems if relative in p and "cross-ref" in p]


def test_quarto_syntax_inside_code_is_not_reported():
    assert not nbcheck.quarto_syntax(
        "Cite with `[@key]`, refer with `@fig-x`:\n\n"
        "```markdown\n::: {#exr-x}\n## Title {.unnumbered}\n:::\n```",
    )


def test_front_matter_in_a_student_notebook_is_reported(book):
    # What the converter wrote before: the front matter as a raw cell. Its
    # prose-numbers name solution cells and quote their answers.
    parsed = qmd.parse(book / "chapters" / f"{CHAPTER}.qmd")
    path, student = notebook(book)
    student.cells.insert(0, nbformat.v4.new_raw_cell(parsed.front_matter))
    nbformat.write(student, path)
    problems = nbcheck.check_no_answers_for_students(book)
    assert [p for p in problems if "'solution-concatenation-sum'" in p]
    assert [p for p in problems if "front matter 'prose-numbers'" in p]


def short_answer(book) -> str:
    """A value a solution prints that the chapter shows nowhere else."""
    answers = nbcheck.answers(book, CHAPTER)
    public = nbcheck.public_text(book, CHAPTER)
    printed = [
        text
        for text, where in answers.items()
        if where.startswith("output of") and not nbcheck._occurs(text, public)
    ]
    return min(printed, key=len)


def test_a_short_printed_answer_in_prose_is_reported(book):
    answer = short_answer(book)
    assert len(answer) < 25, "test set-up: want an answer the old check missed"
    add_markdown(book, f"The sum is {answer}, as you can check.")
    problems = student_leaks(book)
    assert [p for p in problems if repr(answer) in p and "output of" in p]


def test_an_answer_in_an_output_or_metadata_is_reported(book):
    answer = short_answer(book)
    path, student = notebook(book)
    cell = next(c for c in student.cells if c.get("outputs"))
    cell.outputs.append(nbformat.v4.new_output("stream", text=answer))
    nbformat.write(student, path)
    assert student_leaks(book)
    path, student = notebook(book)
    cell.outputs.pop()
    student.cells[0].metadata["answer"] = answer
    nbformat.write(student, path)
    assert student_leaks(book)


def test_a_solution_cell_in_a_student_notebook_is_reported(book):
    _, instructor = notebook(book, "instructor")
    parsed = qmd.parse(book / "chapters" / f"{CHAPTER}.qmd")
    flags = [secret for _, secret in convert.edition_cells(parsed)]
    solution = next(
        c
        for c, secret in zip(instructor.cells, flags, strict=True)
        if secret and c.cell_type == "code"
    )
    path, student = notebook(book)
    student.cells.append(solution)
    nbformat.write(student, path)
    problems = student_leaks(book)
    assert [p for p in problems if "solution cell" in p]


def test_another_handout_is_checked_once_listed(book, monkeypatch):
    # How the builder of another handout (an assignment) joins the check.
    handout = book / "assignments" / f"{CHAPTER}.md"
    handout.parent.mkdir()
    handout.write_text(f"Show that the sum is {short_answer(book)}.\n")
    monkeypatch.setattr(
        nbcheck,
        "STUDENT_FILES",
        [*nbcheck.STUDENT_FILES, lambda root: [(CHAPTER, handout)]],
    )
    problems = nbcheck.check_no_answers_for_students(book)
    assert [p for p in problems if p.startswith("assignments/intuition.md")]


def test_occurs_respects_word_and_number_edges():
    assert nbcheck._occurs("0.5", "is 0.5.")
    assert nbcheck._occurs("[1, 2]", "x[1, 2]y")
    assert not nbcheck._occurs("0.5", "is 10.5")
    assert not nbcheck._occurs("0.5", "is 0.55")
    assert not nbcheck._occurs("2.3", "Section 2.3.1")
    assert not nbcheck._occurs("True", "isTrue")
