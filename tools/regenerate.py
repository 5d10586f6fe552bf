"""Regenerate the notebooks, figures and assignments from the chapters.

    python -m tools.regenerate            # every chapter, both editions
    python -m tools.regenerate mechanics  # one chapter (by file stem)

For each chapter: its links (tools/source/links.py), then
`notebooks/<name>.ipynb` (student) and `notebooks/instructor/<name>.ipynb`,
each executed in a fresh kernel, the instructor run exporting the figures
(tools/export/figures.py); then figures/README.md and each graded
chapter's `assignments/<name>.ipynb` (tools/assignments.py). Running it
twice gives byte-identical files; never edit them by hand.
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
from tools.source.book import ONE_THREAD, REGENERATE, ROOT, notebook_chapters
from tools.source.book import notebook_path as _notebook_path

CHAPTERS = ROOT / "chapters"
FIGURES = ROOT / "figures"


def notebook_path(name: str, edition: str) -> Path:
    return _notebook_path(ROOT, name, edition)


def execute(
    notebook: nbformat.NotebookNode, source: Path, export: bool = False
) -> float:
    """Run every cell in a fresh kernel (one thread: outputs must not
    depend on it); with `export`, save the labelled figures too."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    os.environ.update(ONE_THREAD)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(ROOT / "notebooks")}},
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
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
        report.append(f"{edition} {seconds:.1f} s")
    return f"{name}: " + ", ".join(report)


def coalesce_streams(notebook) -> None:
    """Join a cell's consecutive stdout (or stderr) pieces, which the
    kernel flushes as timing decides, so the same text gives the same file."""
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
    """Keep the recorded output of an unchanged timing cell (tagged
    `nbval-ignore-output`), so a diff shows only real changes."""
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
    figures, missing = [], []
    for name in notebook_chapters(ROOT):
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
    parser.add_argument("chapters", nargs="*", help="default: all chapters")
    parser.add_argument("--jobs", type=int, default=2, help="at once")
    args = parser.parse_args(argv)
    try:  # parses every chapter: a broken one stops here, before a kernel
        chapters = notebook_chapters(ROOT)
    except qmd_module.QmdError as error:
        raise SystemExit(str(error)) from None
    names = args.chapters or chapters
    unknown = set(names) - set(chapters)
    if unknown:
        raise SystemExit(
            f"no such chapter in chapters/: {', '.join(sorted(unknown))}"
        )
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
    main()
