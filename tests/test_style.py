"""One figure style for the whole book, identical in every chapter."""

import bookcheck
import qmd
from conftest import ROOT


def style_cells():
    cells = {}
    for name in bookcheck.notebook_chapters(ROOT):
        chunks = qmd.parse(ROOT / "chapters" / f"{name}.qmd").chunks()
        cells[name] = chunks[0] if chunks else None
    return cells


def test_every_chapter_opens_with_the_style_cell():
    for name, chunk in style_cells().items():
        assert chunk is not None and chunk.options.get("label") == "style", (
            f"chapters/{name}.qmd: the first code cell must be the shared "
            "style cell ('#| label: style')"
        )


def test_style_cells_are_identical():
    cells = style_cells()
    first_name, first = next(iter(cells.items()))
    for name, chunk in cells.items():
        assert chunk.source == first.source, (
            f"chapters/{name}.qmd: its style cell differs from the one in "
            f"chapters/{first_name}.qmd; copy it exactly"
        )


def test_style_figure_size_matches_quarto():
    html = bookcheck.quarto_config(ROOT)["format"]["html"]
    size = (html["fig-width"], html["fig-height"])
    namespace: dict = {}
    source = next(iter(style_cells().values())).source
    exec(compile(source, "style cell", "exec"), namespace)
    rc = namespace["plt"].rcParams
    assert tuple(rc["figure.figsize"]) == size, (
        "the style cell's figure.figsize must equal fig-width and "
        "fig-height in _quarto.yml"
    )
