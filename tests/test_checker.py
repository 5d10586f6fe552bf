"""The checks can fail: plant a mistake in a copy of the book, see it named.

Each test copies the book, breaks one thing the way an author might, and
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
NOTEBOOK = "intuition.ipynb"


@pytest.fixture
def book(tmp_path):
    copy = copy_book(tmp_path / "book")
    return copy


def edit(book, relative, old, new, count=1):
    path = book / relative
    text = path.read_text(encoding="utf-8")
    assert old in text, f"test set-up: {old!r} not in {relative}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def append(book, relative, text):
    path = book / relative
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def named(problems, fragment):
    return [p for p in problems if fragment in p]


def test_missing_fig_alt_is_reported(book):
    append(
        book,
        CHAPTER,
        '\n```{python}\n#| label: fig-planted\n#| fig-cap: "A plot."\n'
        "plt.plot([0, 1])\nplt.show()\n```\n",
    )
    problems = qmdcheck.check_figure_cells(book)
    assert named(problems, CHAPTER)
    assert named(problems, "fig-alt")


def test_unlabelled_figure_cell_is_reported(book):
    append(book, CHAPTER, "\n```{python}\nplt.plot([0, 1])\nplt.show()\n```\n")
    assert named(qmdcheck.check_figure_cells(book), "label: fig-")


def test_missing_citation_key_is_reported(book):
    lines = (book / CHAPTER).read_text(encoding="utf-8").count("\n")
    append(book, CHAPTER, "\n\nAs shown before [@nokey2020].\n")
    problems = qmdcheck.check_citations(book)
    assert named(problems, f"{CHAPTER}:{lines + 3}:")
    assert named(problems, "@nokey2020")


def test_unresolved_crossref_is_reported(book):
    append(book, CHAPTER, "\nSee @fig-missing and @eq-nowhere.\n")
    problems = qmdcheck.check_crossrefs(book)
    assert named(problems, "@fig-missing") and named(problems, "@eq-nowhere")
    assert all(CHAPTER in p for p in problems)


def test_code_and_maths_are_not_mistaken_for_citations(book):
    append(
        book,
        CHAPTER,
        "\nIn code, `Y = X @ W` and `@dataclass`; in maths $a @b$; mail "
        "someone@example.org.\n",
    )
    assert not qmdcheck.check_citations(book)


def test_chapter_edited_without_regenerating_is_reported(book):
    append(book, CHAPTER, "\nA sentence added after the last regeneration.\n")
    problems = outputcheck.check_notebooks_in_sync(book)
    assert named(problems, "notebooks/intuition.ipynb")
    assert named(problems, "python -m tools.regenerate intuition")


def test_folded_cell_shown_in_jupyter_is_reported(book):
    # The figure style is folded on the website, so collapsed in Jupyter.
    path = book / "notebooks" / "intuition.ipynb"
    notebook = nbformat.read(path, 4)
    style = next(c for c in notebook.cells if "label: style" in c.source)
    assert style.metadata.pop("jupyter") == {"source_hidden": True}
    nbformat.write(notebook, path)
    problems = outputcheck.check_notebooks_in_sync(book)
    assert named(problems, "notebooks/intuition.ipynb is out of date")


def test_unclosed_chunk_names_file_and_line(book):
    lines = (book / CHAPTER).read_text(encoding="utf-8").count("\n")
    append(book, CHAPTER, "\n```{python}\nprint(1)\n")
    problems = qmdcheck.check_fences(book)
    assert named(problems, f"{CHAPTER}:{lines + 2}")


def test_unclosed_div_names_file_and_line(book):
    append(book, CHAPTER, "\n::: {.callout-note}\nNever closed.\n")
    problems = qmdcheck.check_fences(book)
    assert named(problems, CHAPTER) and named(problems, "never closed")


@pytest.mark.parametrize(
    "code, found",
    [("values=[1,2 ,3]", "ruff format"), ("import os", "ruff F401")],
)
def test_ruff_findings_name_the_chapter_line(book, code, found):
    lines = (book / CHAPTER).read_text(encoding="utf-8").count("\n")
    append(book, CHAPTER, f"\n```{{python}}\n{code}\n```\n")
    notebook = convert.to_notebook(qmd.parse(book / CHAPTER), "instructor")
    nbformat.write(notebook, book / "notebooks" / "instructor" / NOTEBOOK)
    problems = qmdcheck.check_ruff(book)
    assert named(problems, f"{CHAPTER}:{lines + 3}: {found}"), problems


def test_chapter_missing_from_quarto_yml_is_reported(book):
    (book / "chapters" / "extra.qmd").write_text("# Extra\n", encoding="utf-8")
    problems = qmdcheck.check_quarto_files(book)
    assert named(problems, "chapters/extra.qmd")


def test_listed_file_that_does_not_exist_is_reported(book):
    edit(book, "_quarto.yml", "chapters/systems.qmd", "chapters/gone.qmd")
    problems = qmdcheck.check_quarto_files(book)
    assert named(problems, "chapters/gone.qmd")


def test_prose_number_that_drifted_is_reported(book):
    edit(book, CHAPTER, "[1.5, 0.1]", "[1.5, 0.2]", count=1)
    problems = outputcheck.check_prose_numbers(book)
    assert named(problems, CHAPTER)


def test_output_that_drifted_from_the_prose_is_reported(book):
    path = book / "notebooks" / "instructor" / "intuition.ipynb"
    notebook = nbformat.read(path, 4)
    for cell in notebook.cells:
        if "label: residual-sum" in cell.source:
            cell.outputs[0]["text"] = "x + update = [1.5, 0.2]\n"
    nbformat.write(notebook, path)
    problems = outputcheck.check_prose_numbers(book)
    assert named(problems, "residual-sum")


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_missing_exported_figure_is_reported(book, suffix):
    figure = next((book / "figures").glob(f"fig-*.{suffix}"))
    figure.unlink()
    problems = outputcheck.check_exported_figures(book)
    assert named(problems, f"figures/{figure.name}")


def test_screen_resolution_export_is_reported(book):
    # The notebook's own 100-dpi PNG copied over the print export.
    path = book / "notebooks" / "instructor" / "intuition.ipynb"
    images = [
        output["data"]["image/png"]
        for cell in nbformat.read(path, 4).cells
        if "label: fig-prenorm-block" in cell.source
        for output in cell.outputs
        if "image/png" in output.get("data", {})
    ]
    data = images[0]
    figure = book / "figures" / "fig-prenorm-block.png"
    figure.write_bytes(base64.b64decode(data))
    problems = outputcheck.check_exported_figures(book)
    assert named(problems, "fig-prenorm-block.png is not a 300-dpi")


def test_figure_missing_from_the_index_is_reported(book):
    edit(book, "figures/README.md", "[`fig-prenorm-block.svg`]", "[`x.svg`]")
    problems = outputcheck.check_exported_figures(book)
    assert named(problems, "'fig-prenorm-block' has no entry")


def test_warning_in_a_notebook_is_reported(book):
    path = book / "notebooks" / "intuition.ipynb"
    notebook = nbformat.read(path, 4)
    code = next(c for c in notebook.cells if c.cell_type == "code")
    code.outputs.append(
        nbformat.v4.new_output("stream", name="stderr", text="UserWarning\n")
    )
    nbformat.write(notebook, path)
    problems = outputcheck.check_clean_outputs(book)
    assert named(problems, "notebooks/intuition.ipynb")


def test_changed_expected_value_fails_nbval(pytester):
    """nbval, as the suite runs it, fails on a changed printed value."""
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(6 * 7)", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", text="41\n")]
    notebook.cells = [cell]
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, pytester.path / "planted.ipynb")
    # The suite's own options, in this process: no second interpreter.
    result = pytester.runpytest_inprocess(
        "-c",
        str(ROOT / "pyproject.toml"),
        "--rootdir",
        str(pytester.path),
        "-n",
        "0",
        "planted.ipynb",
    )
    assert result.ret == 1, result.stdout.str()[-2000:]
    output = result.stdout.str()
    assert "planted.ipynb" in output
    assert "41" in output and "42" in output


def test_skipped_heading_level_is_reported(book):
    append(book, CHAPTER, "\n## A section\n\n#### Too deep\n")
    problems = qmdcheck.check_headings(book)
    assert named(problems, CHAPTER) and named(problems, "level 4 follows")


def test_headings_inside_exercise_divs_are_allowed(book):
    append(book, CHAPTER, "\n## A section\n\n::: {#exr-x}\n## Title\n:::\n")
    assert not qmdcheck.check_headings(book)


def test_two_sentences_on_one_line_are_reported(book):
    append(book, CHAPTER, "\nThe block adds. It does not concatenate.\n")
    problems = qmdcheck.check_one_sentence_per_line(book)
    assert named(problems, CHAPTER) and named(problems, "one sentence")


def test_list_numbers_and_abbreviations_are_not_sentences(book):
    append(book, CHAPTER, "\n1. Compute it, e.g. By hand.\n2. Then check.\n")
    append(book, CHAPTER, "\n1. Which?\n   a. That one.\n   b. This one.\n")
    assert not qmdcheck.check_one_sentence_per_line(book)


def test_svg_output_is_reported(book):
    path = book / "notebooks" / "instructor" / "intuition.ipynb"
    notebook = nbformat.read(path, 4)
    cell = next(c for c in notebook.cells if "label: fig-" in c.source)
    cell.outputs.append(
        nbformat.v4.new_output(
            "display_data", data={"image/svg+xml": "<svg></svg>"}
        )
    )
    nbformat.write(notebook, path)
    problems = outputcheck.check_figure_outputs(book)
    assert named(problems, "SVG") and named(problems, CHAPTER)


def test_image_from_an_unlabelled_cell_is_reported(book):
    path = book / "notebooks" / "instructor" / "intuition.ipynb"
    notebook = nbformat.read(path, 4)
    cell = next(
        c
        for c in notebook.cells
        if c.cell_type == "code" and "label: fig-" not in c.source
    )
    cell.outputs.append(
        nbformat.v4.new_output("display_data", data={"image/png": "iVBOR"})
    )
    nbformat.write(notebook, path)
    problems = outputcheck.check_figure_outputs(book)
    assert named(problems, "without a '#| label: fig-")
