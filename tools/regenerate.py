"""Regenerate the reference notebooks and exported figures from the chapters.

    python -m tools.regenerate            # every chapter, both editions
    python -m tools.regenerate mechanics  # one chapter (by file stem)

For each `chapters/<name>.qmd` this first rewrites the chapter's notebook
and source links from `book: repo-url` in `_quarto.yml`
(tools/source/links.py),
then writes

- `notebooks/<name>.ipynb`: the student edition (no worked solutions),
- `notebooks/instructor/<name>.ipynb`: the instructor edition,

each executed top to bottom in a fresh kernel and saved with its outputs.
While the instructor edition executes, every labelled figure is saved to
`figures/<label>.png` (300 dpi) and `figures/<label>.svg`
(tools/export/figures.py); last, `figures/README.md`, the index of captions
and alt text, is rewritten, and the student assignment
`assignments/<name>.ipynb` of each chapter with graded exercises is written
(tools/assignments.py, with otter-grader). Running it twice gives
byte-identical files.
Outputs are never edited by hand: edit the chapter and run this again.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat

from tools import assignments
from tools.check import outputs as outputcheck
from tools.export import figures as figure_export
from tools.export import notebook as convert
from tools.source import links
from tools.source import qmd as qmd_module
from tools.source.book import (
    ONE_THREAD,
    REGENERATE,
    ROOT,
    notebook_chapters,
)
from tools.source.book import notebook_path as _notebook_path

CHAPTERS = ROOT / "chapters"
NOTEBOOKS = ROOT / "notebooks"
FIGURES = ROOT / "figures"

# Thread counts change the order of float reductions; one thread everywhere
# keeps generated outputs and nbval's re-execution comparable.


def notebook_path(name: str, edition: str) -> Path:
    return _notebook_path(ROOT, name, edition)


def chapter_names() -> list[str]:
    """Chapters with python code; prose-only pages get no notebook."""
    return notebook_chapters(ROOT)


def execute(
    notebook: nbformat.NotebookNode, source: Path, export: bool = False
) -> float:
    """Run every cell in a fresh kernel; return the wall time in seconds.

    With `export`, every labelled figure is also saved into figures/.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    os.environ.update(ONE_THREAD)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    drawn = Path(tempfile.mkdtemp(prefix="book-figures-")) if export else None
    if drawn:
        figure_export.install(client, drawn)
    started = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as error:
        raise SystemExit(
            f"{source}: a cell failed while executing:\n{error}"
        ) from None
    finally:
        if drawn:
            figure_export.settle(drawn, FIGURES)
    return time.perf_counter() - started


def write_notebook(notebook: nbformat.NotebookNode, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = nbformat.writes(notebook) + "\n"
    path.write_text(text, encoding="utf-8")


def build(name: str) -> str:
    """Convert, execute and write both editions of one chapter."""
    source = CHAPTERS / f"{name}.qmd"
    parsed = qmd_module.parse(source)
    report = []
    for edition in qmd_module.EDITIONS:
        notebook = convert.to_notebook(parsed, edition)
        # Both editions draw the same figures; export them once.
        seconds = execute(notebook, source, export=edition == "instructor")
        path = notebook_path(name, edition)
        coalesce_streams(notebook)
        keep_volatile_outputs(notebook, path)
        write_notebook(notebook, path)
        report.append(f"{edition} {seconds:.1f} s")
    return f"{name}: " + ", ".join(report)


def coalesce_streams(notebook) -> None:
    """Join consecutive stdout (or stderr) pieces of a cell into one.

    The kernel flushes printed text in pieces that depend on timing; joined,
    the same text gives the same file on every run.
    """
    for cell in notebook.cells:
        merged = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (
                previous is not None
                and output.get("output_type") == "stream"
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")
            ):
                previous["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


def keep_volatile_outputs(notebook, path: Path) -> None:
    """Keep the recorded output of an unchanged timing cell.

    A cell tagged `nbval-ignore-output` prints wall-clock times, which
    differ on every run. While its source is unchanged, the output recorded
    when it last changed stays, so regenerating gives byte-identical files
    and a diff shows only real changes.
    """
    if not path.exists():
        return
    recorded = {
        cell.source: cell.get("outputs", [])
        for cell in nbformat.read(path, 4).cells
        if cell.cell_type == "code"
    }
    for cell in notebook.cells:
        volatile = outputcheck.ignores_output(cell)
        if volatile and cell.source in recorded:
            cell.outputs = recorded[cell.source]


def export_figures() -> None:
    """Check each figure cell drew one image and was exported; index them."""
    figures = []
    missing = []
    for name in chapter_names():
        notebook = nbformat.read(notebook_path(name, "instructor"), 4)
        cells = figure_export.figure_cells(notebook, qmd_module.cell_options)
        for label, options, images in cells:
            if images != 1:
                raise SystemExit(
                    f"chapters/{name}.qmd: figure cell '{label}' drew "
                    f"{images} images; a labelled figure cell must "
                    "draw exactly one (end it with plt.show())"
                )
            figures.append((name, label, options))
            for suffix in figure_export.FORMATS:
                if not (FIGURES / f"{label}.{suffix}").exists():
                    missing.append(f"{label}.{suffix} (run it for {name})")
    if missing:
        raise SystemExit("figures/ lacks " + ", ".join(missing))
    figure_export.write_index(FIGURES, figures, REGENERATE)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "chapters",
        nargs="*",
        help="chapter file stems (default: all chapters)",
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="chapters executed at once"
    )
    args = parser.parse_args(argv)
    names = args.chapters or chapter_names()
    unknown = [name for name in names if name not in chapter_names()]
    if unknown:
        raise SystemExit(f"no such chapter in chapters/: {', '.join(unknown)}")
    # Parse everything first so a broken chapter fails before any kernel.
    for name in names:
        qmd_module.parse(CHAPTERS / f"{name}.qmd")
    for name in names:
        if links.sync(ROOT, name):
            print(f"{name}: notebook and source links rewritten")
    warm_font_cache()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for line in pool.map(build, names):
            print(line, flush=True)
    export_figures()
    print(f"figures: {len(list(FIGURES.glob('*.svg')))} indexed")
    for name in names:
        if name in assignments.graded_chapters():
            path = assignments.write_student_assignment(name)
            print(f"{name}: assignment {path.relative_to(ROOT)} written")


def warm_font_cache() -> None:
    """Build matplotlib's font cache before any kernel prints about it."""
    import matplotlib.font_manager  # noqa: F401


if __name__ == "__main__":
    try:
        main()
    except qmd_module.QmdError as error:
        # A broken chapter: its file and line, not a traceback.
        raise SystemExit(str(error)) from None
