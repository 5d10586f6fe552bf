"""The checks can fail: plant a mistake in a copy of the book, see it named.

Each case copies the book, breaks one thing the way an author might, and
asserts that the matching check reports it with the file's name.
"""

import base64

import nbformat
import pytest
from conftest import ROOT, copy_book

from tools.check import lint as qmdcheck
from tools.check import outputs as outputcheck
from tools.export import notebook as convert
from tools.source import qmd

CHAPTER = "chapters/intuition.qmd"
STUDENT = "notebooks/intuition.ipynb"
INSTRUCTOR = "notebooks/instructor/intuition.ipynb"


@pytest.fixture
def book(tmp_path):
    return copy_book(tmp_path / "book")


def lines(book):
    return (book / CHAPTER).read_text(encoding="utf-8").count("\n")


def append(text):
    def plant(book):
        path = book / CHAPTER
        path.write_text(path.read_text("utf-8") + text, encoding="utf-8")

    return plant


def edit(relative, old, new):
    def plant(book):
        text = (book / relative).read_text(encoding="utf-8")
        assert old in text, f"test set-up: {old!r} not in {relative}"
        (book / relative).write_text(text.replace(old, new, 1), "utf-8")

    return plant


def notebook(relative, change):
    def plant(book):
        cells = nbformat.read(book / relative, 4)
        change(cells.cells)
        nbformat.write(cells, book / relative)

    return plant


def first(cells, test):
    return next(c for c in cells if test(c))


def output(**data):
    return nbformat.v4.new_output("display_data", data=data)


def unfold(cells):
    style = first(cells, lambda c: "label: style" in c.source)
    assert style.metadata.pop("jupyter") == {"source_hidden": True}


def drift(cells):
    cell = first(cells, lambda c: "label: residual-sum" in c.source)
    cell.outputs[0]["text"] = "x + update = [1.5, 0.2]\n"


def stderr(cells):
    cell = first(cells, lambda c: c.cell_type == "code")
    cell.outputs.append(
        nbformat.v4.new_output("stream", name="stderr", text="UserWarning\n")
    )


def student_output(cells):
    cell = first(cells, lambda c: c.get("outputs"))
    cell.outputs[0]["text"] = "what the instructor edition never said\n"


def svg(cells):
    cell = first(cells, lambda c: "label: fig-" in c.source)
    cell.outputs.append(output(**{"image/svg+xml": "<svg></svg>"}))


def unlabelled_image(cells):
    cell = first(
        cells, lambda c: c.cell_type == "code" and "fig-" not in c.source
    )
    cell.outputs.append(output(**{"image/png": "iVBOR"}))


def screen_resolution(book):
    # The notebook's own 100-dpi PNG copied over the print export.
    cells = nbformat.read(book / INSTRUCTOR, 4).cells
    cell = first(cells, lambda c: "label: fig-prenorm-block" in c.source)
    data = first(cell.outputs, lambda o: "image/png" in o.get("data", {}))
    png = base64.b64decode(data["data"]["image/png"])
    (book / "figures" / "fig-prenorm-block.png").write_bytes(png)


def unlink(name):
    return lambda book: (book / "figures" / name).unlink()


EXERCISE = "\n::: {#exr-planted}\n## A task\n*Explain · 5 min*\n\nWhy?\n:::\n"
SOLUTION = """
::: {.content-visible when-profile="instructor"}
::: {.solution}
```{python}
solution_planted = 1
```
:::
:::
"""
UNGUARDED = "\n::: {.solution}\nBecause.\n:::\n"
FIGURE = '\n```{python}\n#| label: fig-x\n#| fig-cap: "A plot."\nplt.show()\n'
PLANTS = [
    # What is planted, the check that must report it, what it says.
    (append(FIGURE + "```\n"), "figure_cells", "'fig-x' has no fig-alt"),
    (append("\n```{python}\nplt.show()\n```\n"), "figure_cells", "fig-..."),
    (append("\n\nAs shown [@nokey2020].\n"), "citations", "{3}: cites @nok"),
    (append("\nSee @fig-missing.\n"), "crossrefs", "{2}: @fig-missing"),
    (append("\nAnd @Eq-nowhere.\n"), "crossrefs", "{2}: @Eq-nowhere"),
    (append("\n::: {.callout-note}\n"), "quarto_files", "{2}: fenced div"),
    (append("\n## A\n\n#### Deep\n"), "headings", "{4}: heading level 4"),
    (append("\nIt adds. It does not.\n"), "one_sentence_per_line", "{2}"),
    (
        lambda book: (book / "chapters/extra.qmd").write_text("# Extra\n"),
        "quarto_files",
        "chapters/extra.qmd: not listed",
    ),
    (
        edit("_quarto.yml", "chapters/systems.qmd", "chapters/gone.qmd"),
        "quarto_files",
        "lists chapters/gone.qmd",
    ),
    (append("\nA sentence more.\n"), "notebooks_in_sync", f"{STUDENT} is"),
    (notebook(STUDENT, unfold), "notebooks_in_sync", f"{STUDENT} is out"),
    (
        edit(CHAPTER, "[1.5, 0.1]", "[1.5, 0.2]"),
        "prose_numbers",
        f"{CHAPTER}: prose-numbers lists '[1.5, 0.2]'",
    ),
    (notebook(INSTRUCTOR, drift), "prose_numbers", "'residual-sum' prints"),
    (unlink("fig-prenorm-block.png"), "exported_figures", "no exported"),
    (screen_resolution, "exported_figures", "png is not a 300-dpi"),
    (
        edit("figures/README.md", "[`fig-prenorm-block.svg`]", "[`x.svg`]"),
        "exported_figures",
        "'fig-prenorm-block' has no entry",
    ),
    (notebook(STUDENT, stderr), "clean_outputs", f"{STUDENT}: cell"),
    (notebook(STUDENT, student_output), "editions_agree", f"{STUDENT}: cell"),
    (append(EXERCISE), "solutions", "exr-planted has"),
    (append(EXERCISE + UNGUARDED), "solutions", "a .solution div"),
    (
        append(EXERCISE + SOLUTION + "\n```{python}\nsolution_x = 1\n```\n"),
        "solutions",
        "code defining a solution_... name",
    ),
    (notebook(INSTRUCTOR, svg), "figure_outputs", "outputs SVG"),
    (notebook(INSTRUCTOR, unlabelled_image), "figure_outputs", "without a"),
]


@pytest.mark.parametrize("plant, check, said", PLANTS)
def test_a_planted_mistake_is_reported(book, plant, check, said):
    said = said.format(*[f"{CHAPTER}:{lines(book) + n}" for n in range(6)])
    plant(book)
    module = qmdcheck if hasattr(qmdcheck, f"check_{check}") else outputcheck
    problems = getattr(module, f"check_{check}")(book)
    assert [p for p in problems if said in p], problems


@pytest.mark.parametrize(
    "check, text",
    [
        (
            qmdcheck.check_citations,
            "\nIn code, `Y = X @ W` and `@dataclass`; in maths $a @b$; mail "
            "someone@example.org.\n",
        ),
        (
            qmdcheck.check_one_sentence_per_line,
            "\n1. Compute it, e.g. By hand.\n2. Then check.\n"
            "\n1. Which?\n   a. That one.\n   b. This one.\n",
        ),
    ],
)
def test_what_looks_like_a_mistake_is_not_reported(book, check, text):
    # An exercise's title heading, a guarded solution: test_book.py, on
    # every chapter.
    append(text)(book)
    assert not check(book)


@pytest.mark.parametrize(
    "code, found",
    [("values=[1,2 ,3]", "ruff format"), ("import os", "ruff F401")],
)
def test_ruff_findings_name_the_chapter_line(book, code, found):
    line = lines(book) + 3
    append(f"\n```{{python}}\n{code}\n```\n")(book)
    converted = convert.to_notebook(qmd.parse(book / CHAPTER), "instructor")
    nbformat.write(converted, book / INSTRUCTOR)
    problems = qmdcheck.check_ruff(book)
    assert [p for p in problems if f"{CHAPTER}:{line}: {found}" in p]


def test_the_suite_compares_notebook_outputs_strictly():
    """nbval fails a cell whose printed value changed (nbval's guarantee,
    tested there) unless run with --nbval-lax; the suite runs it strictly."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    options = config["tool"]["pytest"]["ini_options"]["addopts"].split()
    assert "--nbval" in options and "--nbval-lax" not in options, options
