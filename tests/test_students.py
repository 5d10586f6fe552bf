"""What learners receive (tools/check/students.py): no Quarto syntax, and
no answer in any student artefact.

The book passes both checks (test_book.py); here each is shown to fail on
a planted leak in a copy of the book, naming the artefact.
"""

import html
import json
import shutil

import nbformat
import pytest
from conftest import ROOT, copy_book

from tools.check import students
from tools.source import book as bookfiles
from tools.source import qmd

CHAPTER = "mechanics"
# A formula as KaTeX draws it: its MathML, then the drawing (aria-hidden).
# Read naively, the tags stripped, it says "8.24", an answer of the chapter.
KATEX = (
    '<span class="katex"><span class="katex-mathml"><math><semantics>'
    "<mfrac><mn>8.2</mn><mn>4</mn></mfrac><annotation encoding="
    '"application/x-tex">\\frac{8.2}{4}</annotation></semantics></math>'
    '</span><span class="katex-html" aria-hidden="true"><span>8.2</span>'
    "<span>4</span></span></span>"
)


@pytest.fixture
def book(tmp_path):
    """A copy of the book with its assignments and a rendered page and
    search index that hold no answer."""
    copy = copy_book(tmp_path / "book")
    shutil.copytree(ROOT / "assignments", copy / "assignments")
    site = copy / "_book" / "chapters"
    site.mkdir(parents=True)
    (site / f"{CHAPTER}.html").write_text(f"<p>Take {KATEX} here.</p>")
    entry = {"href": f"chapters/{CHAPTER}.html#x", "title": "", "text": ""}
    (copy / "_book" / "search.json").write_text(json.dumps([entry]))
    return copy


def secret(book, source: str) -> str:
    """The shortest answer of the chapter of one kind, shown nowhere else."""
    answers = students.answers(book, CHAPTER)
    public = students.public_text(book, CHAPTER)
    return min(
        (
            text
            for text, where in answers.items()
            if where.startswith(source) and not students.occurs(text, public)
        ),
        key=len,
    )


def edit_notebook(path, change):
    notebook = nbformat.read(path, 4)
    change(notebook)
    nbformat.write(notebook, path)


def plant_markdown(path, text):
    new = nbformat.v4.new_markdown_cell(text)
    edit_notebook(path, lambda notebook: notebook.cells.append(new))


def plant_output(path, text):
    new = nbformat.v4.new_output("stream", text=text)
    edit_notebook(path, lambda nb: nb.cells[3].outputs.append(new))


def plant_metadata(path, text):
    edit_notebook(path, lambda notebook: notebook.metadata.update(x=text))


def plant_page(path, text):
    # As Pandoc highlights code: tokens in spans, characters escaped.
    first, _, rest = (html.escape(part) for part in text.partition(" "))
    path.write_text(f'<pre><code><span class="kw">{first}</span> {rest}')


def plant_index(path, text):
    entry = {"href": f"chapters/{CHAPTER}.html#x", "text": f"So, {text}."}
    path.write_text(json.dumps([entry]))


STUDENT = f"notebooks/{CHAPTER}.ipynb"
PLANTS = [
    # (artefact, how it is planted, the kind of answer planted)
    (STUDENT, plant_markdown, "output of"),  # a short printed value
    (STUDENT, plant_output, "solution prose"),
    (STUDENT, plant_metadata, "front matter"),
    (f"assignments/{CHAPTER}.ipynb", plant_markdown, "solution cell"),
    (f"_book/chapters/{CHAPTER}.html", plant_page, "solution cell"),
    ("_book/search.json", plant_index, "solution prose"),
    ("_book/index.html", plant_page, "solution prose"),  # another page
]


def test_the_clean_copy_passes(book):
    # KaTeX's drawing of a formula is no leak of the "8.24" it spells.
    assert secret(book, "output of") == "8.24"
    assert not students.check_no_answers_for_students(book)


def test_an_answer_in_any_student_artefact_is_reported(book):
    # Every leak planted at once, each answer another: one run of the
    # check must name each, in its artefact, with its kind.
    planted = [(a, plant, secret(book, s), s) for a, plant, s in PLANTS]
    for artefact, plant, answer, _ in planted:
        plant(book / artefact, answer)
    problems = students.check_no_answers_for_students(book)
    for artefact, _, answer, source in planted:
        found = [p for p in problems if p.startswith(artefact)]
        assert [p for p in found if f"{answer!r} ({source}" in p], problems


@pytest.mark.parametrize(
    "planted, kind",
    [
        ("As @fig-prenorm-block shows.", "a cross-reference"),
        ("As @Fig-prenorm-block shows.", "a cross-reference"),
        ("As shown [@vaswani2017attention].", "a citation"),
        ("As shown [see @ba2016layer, p. 2].", "a citation"),
        ("::: {.callout-note}\nA note.\n:::", "a div fence"),
        ("> ::: {.callout-tip}", "a div fence"),
        ("## A section {#sec-planted}", "an attribute"),
        ("## Further reading {.unnumbered}", "an attribute"),
        ("{{< include _explorer-costs.qmd >}}", "a shortcode"),
        ("A note.^[Said in passing.]", "a footnote"),
        ("Cite with `[@key]`:\n\n```\n::: {#exr-x}\n```", None),
    ],
)
def test_each_kind_of_quarto_syntax_is_found(planted, kind):
    found = students.quarto_syntax(f"Some prose.\n\n{planted}")
    assert [f for f in found if f.startswith(kind)] if kind else not found


@pytest.mark.parametrize("edition", qmd.EDITIONS)
def test_quarto_syntax_in_a_notebook_is_reported(book, edition):
    path = bookfiles.notebook_path(book, CHAPTER, edition)
    plant_markdown(path, "Some prose, as @fig-prenorm-block shows.")
    problems = students.check_no_quarto_syntax(book)
    relative = str(path.relative_to(book))
    assert [p for p in problems if relative in p and "cross-ref" in p]
