"""One figure style for the whole book, identical in every chapter."""

from conftest import ROOT

from tools.check import outputs as outputcheck
from tools.source import book as bookfiles
from tools.source import qmd


def style_cells():
    cells = {}
    for name in bookfiles.notebook_chapters(ROOT):
        chunks = qmd.parse(ROOT / "chapters" / f"{name}.qmd").chunks()
        cells[name] = chunks[0] if chunks else None
    return cells


def test_every_chapter_opens_with_the_same_style_cell():
    cells = style_cells()
    first_name, first = next(iter(cells.items()))
    for name, chunk in cells.items():
        assert chunk is not None and chunk.options.get("label") == "style", (
            f"chapters/{name}.qmd: the first code cell must be the shared "
            "style cell ('#| label: style')"
        )
        assert chunk.source == first.source, (
            f"chapters/{name}.qmd: its style cell differs from the one in "
            f"chapters/{first_name}.qmd; copy it exactly"
        )


def test_style_figure_size_matches_quarto():
    html = bookfiles.quarto_config(ROOT)["format"]["html"]
    size = (html["fig-width"], html["fig-height"])
    namespace: dict = {}
    source = next(iter(style_cells().values())).source
    exec(compile(source, "style cell", "exec"), namespace)
    rc = namespace["plt"].rcParams
    assert tuple(rc["figure.figsize"]) == size, (
        "the style cell's figure.figsize must equal fig-width and "
        "fig-height in _quarto.yml"
    )


def ordinary_cells(name):
    """Code cells other than figures, folded self-checks and the style."""
    chunks = qmd.parse(ROOT / "chapters" / f"{name}.qmd").chunks()
    # Checks and the grader's hidden tests are test code, not the chapter's.
    skip = ("fig-", "selfcheck-", "hidden-", "quiz-check", "style")
    return [
        chunk
        for chunk in chunks
        if not str(chunk.options.get("label", "")).startswith(skip)
    ]


def code_lines(chunk):
    return [
        line
        for line in chunk.lines
        if line.strip() and not line.startswith("#|")
    ]


def test_most_code_cells_are_short():
    for name in bookfiles.notebook_chapters(ROOT):
        cells = ordinary_cells(name)
        short = [chunk for chunk in cells if len(code_lines(chunk)) <= 8]
        assert len(short) >= 0.75 * len(cells), (
            f"chapters/{name}.qmd: only {len(short)} of {len(cells)} code "
            "cells have 8 lines or fewer; split long cells (STYLE.md)"
        )


def test_code_lines_fit_79_characters():
    for name in bookfiles.notebook_chapters(ROOT):
        for chunk in qmd.parse(ROOT / "chapters" / f"{name}.qmd").chunks():
            for offset, line in enumerate(chunk.lines):
                if line.startswith("#|") or "http" in line:
                    continue
                assert len(line) <= 79, (
                    f"chapters/{name}.qmd:{chunk.line + 1 + offset}: "
                    f"{len(line)} characters; the limit is 79"
                )


def test_ignored_outputs_are_only_timings_and_say_why():
    """A cell nbval does not compare is tagged, says why, and times.

    The tag (`#| tags: [nbval-ignore-output]`) is an option, which the
    website and the PDF do not print; nbval's comment markers
    (`# NBVAL_IGNORE_OUTPUT`) would be printed as code.
    """
    for name in bookfiles.notebook_chapters(ROOT):
        for chunk in qmd.parse(ROOT / "chapters" / f"{name}.qmd").chunks():
            where = f"chapters/{name}.qmd:{chunk.line}"
            assert "# NBVAL_" not in chunk.source, (
                f"{where}: readers see an nbval marker; tag the cell "
                f"`#| tags: [{outputcheck.IGNORE_OUTPUT}]` instead"
            )
            if outputcheck.IGNORE_OUTPUT not in (
                chunk.options.get("tags") or []
            ):
                continue
            lines = [line for line in chunk.lines if not line.startswith("#|")]
            assert lines[0].startswith("# "), (
                f"{where}: a comment after the options must say why its "
                "output is not compared"
            )
            timed = ("time.", "best_time", "paired_times")
            assert any(word in chunk.source for word in timed), (
                f"{where}: only a wall-clock timing may skip nbval"
            )
