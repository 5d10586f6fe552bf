"""A chapter becomes its notebooks (tools/source/qmd.py, tools/export/):
code cells as `quarto convert` makes them, Markdown as the website shows
it, numbered as Quarto numbers the book (tools/source/numbers.py), with
citations as Pandoc's Chicago author-date style prints them."""

import nbformat
import pytest

from tools.export import notebook as convert
from tools.source import citations, qmd
from tools.source import numbers as booknumbers

SITE = "https://org.github.io/repo/"
CONFIG = """book:
  title: A Small Book
  repo-url: https://github.com/Org/repo
  site-url: https://org.github.io/repo
  chapters:
    - index.qmd
    - chapters/one.qmd
    - chapters/two.qmd
  appendices:
    - chapters/extra.qmd
bibliography: references.bib
"""
BIB = """@article{solo2020one,
  title  = {One {GPU} Is Enough},
  author = {Solo, Han},
  journal = {Journal of Things},
  volume = {3},
  pages = {770--778},
  year   = {2020}
}

@inproceedings{duo2019two,
  title = "Two Heads",
  author = {Duo, Ann and Kaiser, {\\L}ukasz},
  booktitle = {Proceedings of
               Somewhere},
  year = {2019},
  url = {https://example.org/two}
}

@article{trio2018three,
  title = {Three}, author = {Trio, A. and M{\\"u}ller, B. and Cee, C.},
  year = {2018}, doi = {10.1/x}
}
"""
ONE = """---
jupyter: python3
prose-numbers:
  - {text: "42", cell: solution-secret}
---

# The first chapter {#sec-one}

Some prose.

```{python}
#| label: style
#| echo: true
x = 1
```

```{python}
#| label: helper
#| code-fold: true
h = 1
```

```python
not_a_cell = True
```

```{ojs}
viewof w = Inputs.range([1, 8])
```

See @fig-a, @eq-a, [-@eq-a], @tbl-a, @sec-two-b, @sec-two and @exr-one-b.
@Fig-a starts a sentence.^[A note, with @eq-a.] Another.^[Plain.]
As @solo2020one showed [@duo2019two; see @trio2018three, p. 3], and
[-@solo2020one]. Unknown: @unknown2020x. Code `@fig-a` and $a@b$ stay.

```{python}
#| label: fig-a
#| fig-cap: "A figure, after @eq-a [@solo2020one]."
print(1)
```

## A section {#sec-one-a}

$$
y = x
$$ {#eq-a}

$$ z = y $$ {#eq-b}

| a | b |
|---|---|
| 1 | 2 |

: A table of @fig-a. {#tbl-a}

### A subsection

1. Which one?
   a. This one.
   b. That one, as @fig-a shows.

a. Not inside a list item: left as written.

## Not numbered {.unnumbered}

::: {.callout-note}
## Definition: a term
A [term]{.smallcaps} is a word.
:::

::: {.callout-important title="Learning objectives"}
Be able to read it.
:::

::: {.callout-tip}
Code inside this callout:

```{python}
y = 2
```
:::

::: {.content-visible when-format="html"}
A website-only explorer.

::: {.callout-note}
Inside.
:::

```{ojs}
:::
```

:::

{{< include _explorer-x.qmd >}}

## Exercises

::: {#exr-one-a}
## First task
*Explain · 5 min*

Explain it.
:::

::: {.content-visible when-profile="instructor"}
::: {.solution}
The answer.

```{python}
#| label: fig-solution
#| fig-cap: "Drawn only for instructors."
print(42)
```
:::
:::

::: {#exr-one-b}
No title here.
:::
"""
TWO = """# The second chapter {#sec-two}

```{python}
z = 3
```

## First {#sec-two-a}

## Second {#sec-two-b}

::: {#exr-two}
## Task
*Compute · 10 min*
:::

::: {.content-visible when-profile="instructor"}
::: {.solution}
```{python}
print(1 + 2)
```
:::
:::

::: {#exr-two-why}
*Explain · 5 min*
:::

::: {#exr-two-code}
*Implement · 10 min · 2 points*
:::

```{python}
#| label: starter-code
my_answer = None
```
"""


@pytest.fixture
def book(tmp_path):
    return small_book(tmp_path)


def small_book(tmp_path):
    files = {
        "_quarto.yml": CONFIG,
        "references.bib": BIB,
        "requirements.txt": "numpy\ntorch==9.8.1\n",
        "index.qmd": "# Preface {.unnumbered}\n\nHello.\n",
        "chapters/one.qmd": ONE,
        "chapters/two.qmd": TWO,
        "chapters/extra.qmd": "# Extra {#sec-extra}\n\n## More\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def cells(book, name="one", edition="instructor"):
    parsed = qmd.parse(book / "chapters" / f"{name}.qmd")
    if edition == "both":
        return [
            (c.cell_type, c.source, s)
            for c, s in convert.edition_cells(parsed)
        ]
    return [c.source for c in convert.to_notebook(parsed, edition).cells]


def markdown(book, edition="instructor"):
    return "\n\n".join(cells(book, "one", edition))


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """The small book's first chapter as Markdown, converted once."""
    return markdown(small_book(tmp_path_factory.mktemp("book")))


def test_appendices_are_lettered(book):
    # Chapters, sections, figures, equations, tables and exercises: their
    # numbers as the notebooks print them, test_markdown_reads_as_the_website.
    numbers = booknumbers.load_book(book)
    assert numbers.targets["sec-extra"].text() == "Appendix A"
    assert numbers.headings["chapters/extra.qmd"] == ["A", "A.1"]


PAGE = f"{SITE}chapters/one.html"
FIG = f"[Figure 1.1]({PAGE}#fig-a)"


@pytest.mark.parametrize(
    "expected",
    [
        # Cross-references: numbered links to the website.
        f"See {FIG}, [Equation 1.1]({PAGE}#eq-a), [1.1]({PAGE}#eq-a), "
        f"[Table 1.1]({PAGE}#tbl-a), [Section 2.2]({SITE}chapters/two.html"
        f"#sec-two-b), [Chapter 2]({SITE}chapters/two.html) and [Exercise "
        f"1.2]({PAGE}#exr-one-b).\n{FIG} starts",
        f"sentence. (A note, with [Equation 1.1]({PAGE}#eq-a).) Another. "
        "(Plain.)",
        "Code `@fig-a` and $a@b$ stay.",
        # Citations: Chicago author-date.
        "As Solo (2020) showed (Duo and Kaiser 2019; see Trio et al. 2018, "
        "p. 3), and\n(2020). Unknown: @unknown2020x.",
        # Headings numbered, attributes gone; equations keep their numbers.
        "\n## 1.1 A section\n",
        "\n### 1.1.1 A subsection\n",
        "\n## Not numbered\n",
        "\n## 1.2 Exercises",
        "$$\ny = x\n\\tag{1.1}\n$$",
        "$$ z = y \\tag{1.2}\n$$",
        # Lettered choices keep their letters, as bullets.
        f"1. Which one?\n   - (a) This one.\n   - (b) That one, as {FIG} "
        "shows.\n\na. Not inside",
        f"**Table 1.1:** A table of {FIG}.\n\n| a | b |",
        # Callouts, exercises and solutions.
        "> **Definition: a term**\n>\n> A term is a word.",
        "> **Learning objectives**\n>\n> Be able to read it.",
        "**Tip**\n\nCode inside this callout:",  # spans cells: no quote
        "**Exercise 1.1** First task · *Explain · 5 min*\n\nExplain it.",
        "*Solution.*\n\nThe answer.",
        "**Exercise 1.2**\n\nNo title here.",
        # The title cell, then the prose; other fences stay as written.
        "# 1 The first chapter\n\n*Chapter 1 of [A Small Book]",
        f"[Read it on the website]({PAGE})",
        "colab.research.google.com/github/Org/repo/blob/main/",
        f"[Download this notebook]({SITE}notebooks/one.ipynb)",
        "Needs Python 3.10 or newer with `torch`",
        "Its outputs were recorded with torch 9.8;",  # requirements.txt's
        "LICENSE-CODE).\n\nSome prose.",
        "```python\nnot_a_cell = True\n```",
        "```{ojs}\nviewof",
    ],
)
def test_markdown_reads_as_the_website(converted, expected):
    assert expected in converted


def test_references_cell_lists_the_works_cited(book):
    last = cells(book)[-1]
    assert last == (
        "## References\n\n"
        "Duo, Ann, and Łukasz Kaiser. 2019. “Two Heads.” *Proceedings of "
        "Somewhere*. <https://example.org/two>.\n\n"
        "Solo, Han. 2020. “One GPU Is Enough.” *Journal of Things* 3: "
        "770–78.\n\n"
        "Trio, A., B. Müller, and C. Cee. 2018. *Three*. "
        "<https://doi.org/10.1/x>."
    )
    assert not [c for c in cells(book, "two") if "References" in c]


def test_editions_captions_and_left_out_content(book):
    both = cells(book, edition="both")
    assert both[1][2] is True and "Instructor edition" in both[1][1]
    assert "notebooks/instructor/one.ipynb" in both[1][1]
    index = next(i for i, c in enumerate(both) if "label: fig-a" in c[1])
    assert both[index + 1][1].startswith("**Figure 1.1:** A figure, after [")
    assert both[index + 1][1].endswith(" (Solo 2020).")
    solution = next(i for i, c in enumerate(both) if "fig-solution" in c[1])
    assert both[solution + 1] == (
        "markdown",
        "**Figure 1.2:** Drawn only for instructors.",
        True,
    )
    student = cells(book, edition="student")
    assert [c[1] for c in both if not c[2]] == student
    assert not [c for c in student if "The answer" in c or "42" in c]
    text = markdown(book)
    assert "prose-numbers" not in text and "solution-secret" not in text
    assert "website-only explorer" not in text
    assert "include" not in text and ":::" not in text
    assert "website-only" not in "".join(student) and ":::" not in text


def test_code_cells_are_the_python_chunks_options_first(book):
    parsed = qmd.parse(book / "chapters" / "one.qmd")
    notebook = convert.to_notebook(parsed, "instructor")
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code[0].source == "#| label: style\n#| echo: true\nx = 1"
    assert parsed.chunks()[0].options == {"label": "style", "echo": True}
    assert len(code) == 5  # not the ```python and ```{ojs} fences
    # A folded cell (`code-fold: true`) is collapsed in Jupyter.
    hidden = {"jupyter": {"source_hidden": True}}
    assert [c.metadata for c in code[:2]] == [{}, hidden]
    # Valid cells, with stable ids.
    nbformat.validate(notebook)
    again = convert.to_notebook(parsed, "instructor")
    assert [c.id for c in notebook.cells] == [c.id for c in again.cells]


@pytest.mark.parametrize("edition", qmd.EDITIONS)
def test_an_exercise_done_in_code_gets_a_cell_to_work_in(book, edition):
    # The Compute exercise gets one, before its solution; the Explain one
    # is written, and the Implement one has its starter.
    parsed = qmd.parse(book / "chapters" / "two.qmd")
    notebook = convert.to_notebook(parsed, edition)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert code[1] == "# Exercise 2.1: your code here."
    assert code[-1] == "#| label: starter-code\nmy_answer = None"
    assert len(code) == {"student": 3, "instructor": 4}[edition]
    text = "\n".join(c.source for c in notebook.cells)
    assert "**Exercise 2.1** Task · *Compute · 10 min*" in text


def test_same_authors_same_year_get_letters(tmp_path):
    path = tmp_path / "x.bib"
    two = "@article{a1, author={Solo, H.}, title={B}, year={2020}}\n"
    two += "@article{a2, author={Solo, H.}, title={A}, year={2020}}\n"
    path.write_text(two, encoding="utf-8")
    years = {k: w.year for k, w in citations.read(path).items()}
    assert years == {"a1": "2020b", "a2": "2020a"}


def test_a_chapter_not_yet_in_the_book_still_converts(book):
    # A new chapter before `_quarto.yml` lists it: no numbers, no crash
    # (qmdcheck's check_quarto_files names the missing entry).
    path = book / "chapters" / "new.qmd"
    path.write_text(
        ONE.replace("{#sec-one}", "{#sec-new}").replace("-a}", "-n}"),
        encoding="utf-8",
    )
    notebook = convert.to_notebook(qmd.parse(path), "student")
    text = "\n".join(cell.source for cell in notebook.cells)
    assert "$$\ny = x\n$$" in text
    assert "**Exercise** First task" in text
    assert "**Table:** A table of" in text


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


def test_closing_fences_in_both_editions_are_told_apart(book):
    # Each div below closes right after a code chunk, which leaves a stretch
    # of Markdown holding just `:::`: one public, one a solution. Neither
    # becomes a cell, and the solution's code is flagged as one.
    path = book / "chapters" / "one.qmd"
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
