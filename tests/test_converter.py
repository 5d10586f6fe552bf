"""The .qmd to notebook converter: code cells as `quarto convert` makes
them, Markdown as the website reads (tests/test_nbmarkdown.py has more)."""

import nbformat
import pytest

from tools.export import notebook as convert
from tools.source import qmd

SOURCE = """---
title: "A chapter"
jupyter: python3
---

# A chapter {#sec-a}

Some prose.

```{python}
#| label: first
#| echo: true
x = 1
print(x)
```

```python
not_a_cell = True
```

```{ojs}
viewof w = Inputs.range([1, 8])
```

::: {#exr-a}
## An exercise
Do it.
:::

::: {.content-visible when-profile="instructor"}
::: {.solution}
The answer is secret.

```{python}
solution_value = 42
```
:::
:::

Closing prose.
"""


CONFIG = """book:
  title: A book
  repo-url: https://github.com/org/repo
  chapters: [a.qmd, b.qmd]
"""


@pytest.fixture
def chapter(tmp_path):
    (tmp_path / "_quarto.yml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "a.qmd"
    path.write_text(SOURCE, encoding="utf-8")
    return qmd.parse(path)


def test_cells_are_those_nbformat_makes(chapter):
    # The converter builds cells without nbformat's per-cell schema check;
    # they must still be exactly what nbformat.v4.new_*_cell returns.
    make = {
        "markdown": nbformat.v4.new_markdown_cell,
        "code": nbformat.v4.new_code_cell,
    }
    notebook = convert.to_notebook(chapter, "instructor")
    nbformat.validate(notebook)
    again = convert.to_notebook(chapter, "instructor")  # ids are stable
    assert [c.id for c in notebook.cells] == [c.id for c in again.cells]
    assert {cell.cell_type for cell in notebook.cells} == set(make)
    for cell in notebook.cells:
        expected = make[cell.cell_type](cell.source)
        expected["id"] = cell["id"]
        assert cell == expected


def test_only_python_chunks_become_code_cells_options_first(chapter):
    cells = convert.to_notebook(chapter, "instructor").cells
    code = [c.source for c in cells if c.cell_type == "code"]
    assert code[0] == "#| label: first\n#| echo: true\nx = 1\nprint(x)"
    assert chapter.chunks()[0].options == {"label": "first", "echo": True}
    assert len(code) == 2
    markdown = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    assert "```python\nnot_a_cell = True\n```" in markdown
    assert "```{ojs}" in markdown


EXERCISES = """# Exercises {#sec-b}

::: {#exr-b-sum}
## Without a starter
*Compute · 5 min*

Add them.
:::

::: {.content-visible when-profile="instructor"}
::: {.solution}
```{python}
print(1 + 2)
```
:::
:::

::: {#exr-b-why}
*Explain · 5 min*

Say why.
:::

::: {#exr-b-code}
*Implement · 10 min · 2 points*
:::

```{python}
#| label: starter-code
my_answer = None
```
"""


def test_an_exercise_done_in_code_gets_a_cell_to_work_in(tmp_path):
    (tmp_path / "_quarto.yml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "a.qmd").write_text(SOURCE, encoding="utf-8")
    path = tmp_path / "b.qmd"
    path.write_text(EXERCISES, encoding="utf-8")
    for edition in qmd.EDITIONS:
        cells = convert.to_notebook(qmd.parse(path), edition).cells
        code = [c.source for c in cells if c.cell_type == "code"]
        # The Compute exercise gets one, before any solution; the Explain
        # one is written, and the Implement one has its starter.
        scratch = "# Exercise 2.1: your code here."
        assert code[0] == scratch
        assert code[-1].startswith("#| label: starter-code")
        assert len(code) == {"student": 2, "instructor": 3}[edition]
        assert not any("2.2" in c or "2.3" in c for c in code)


def test_markdown_between_code_cells_is_one_cell(chapter):
    cells = convert.to_notebook(chapter, "student").cells
    assert cells[0].cell_type == "markdown"
    assert cells[0].source.endswith("LICENSE-CODE).\n\nSome prose.")
    assert cells[1].cell_type == "code"


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("---\ntitle: x\n", 1, "front matter"),
        ("Prose.\n\n```{python}\nx = 1\n", 3, "python chunk"),
        ("Prose.\n\n::: {.callout-note}\nOpen.\n", 3, "div"),
        ("Prose.\n:::\n", 2, "never opened"),
        ("Prose.\n\n````markdown\ncode\n", 3, "code fence"),
    ],
)
def test_broken_sources_name_file_and_line(tmp_path, text, line, words):
    path = tmp_path / "broken.qmd"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(qmd.QmdError) as error:
        qmd.parse(path)
    assert f"broken.qmd:{line}:" in str(error.value)
    assert words in str(error.value)


@pytest.mark.parametrize("edition", qmd.EDITIONS)
def test_website_only_divs_are_left_out(tmp_path, edition):
    (tmp_path / "_quarto.yml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "b.qmd"
    path.write_text(
        "Before.\n\n"
        '::: {.content-visible when-format="html"}\n'
        "Explore.\n\n::: {.callout-note}\nInside.\n:::\n\n"
        "```{ojs}\n:::\n```\n\n:::\n\nAfter.\n",
        encoding="utf-8",
    )
    cells = convert.to_notebook(qmd.parse(path), edition).cells
    assert [c.source for c in cells] == ["Before.\n\nAfter."]


def test_a_folded_cell_is_collapsed_in_jupyter(tmp_path):
    # On the website a `code-fold: true` cell shows only its summary; in
    # JupyterLab its code is collapsed (source_hidden) and still runs.
    (tmp_path / "_quarto.yml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "a.qmd"
    folded = "```{python}\n#| label: helper\n#| code-fold: true\nx = 1\n```"
    shown = "```{python}\n#| label: shown\n#| code-fold: false\ny = 2\n```"
    path.write_text(f"# A\n\n{folded}\n\n{shown}\n", encoding="utf-8")
    notebook = convert.to_notebook(qmd.parse(path), "student")
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.metadata for cell in code] == [
        {"jupyter": {"source_hidden": True}},
        {},
    ]


def test_closing_fences_in_both_editions_are_told_apart(tmp_path):
    # Each div below closes right after a code chunk, which leaves a stretch
    # of Markdown holding just `:::`: one public, one a solution. Neither
    # becomes a cell, and the solution's code is flagged as one.
    (tmp_path / "_quarto.yml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "a.qmd"
    path.write_text(
        "\n::: {#exr-fenced}\n## Fenced\n\n```{python}\nx = 1\n```\n:::\n"
        '\n::: {.content-visible when-profile="instructor"}\nBecause.\n\n'
        "```{python}\nsolution_fenced = 2\n```\n:::\n",
        encoding="utf-8",
    )
    cells = convert.edition_cells(qmd.parse(path))
    assert not [cell for cell, _ in cells if cell.source.strip() == ":::"]
    flags = [secret for cell, secret in cells if "_fenced" in cell.source]
    assert flags == [True]
