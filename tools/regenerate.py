"""Regenerate the notebooks, figures and assignments from the chapters.

    python -m tools.regenerate            # every chapter, both editions
    python -m tools.regenerate mechanics  # one chapter (by file stem)

Each chapter's links, both editions executed by nbclient in fresh kernels
(the instructor run exports the figures), then figures/README.md and the
assignments. Running it twice gives byte-identical files.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tools import assignments
from tools.check import outputs as outputcheck
from tools.export import figures as figure_export
from tools.export import graded
from tools.export import notebook as convert
from tools.source import book, links, qmd
from tools.source.book import ROOT

FIGURES = ROOT / "figures"


def execute(notebook, source: Path, export: bool = False) -> None:
    """Run every cell in a fresh kernel, on one thread (outputs must not
    depend on it); with `export`, save the labelled figures too."""
    os.environ.update(book.ONE_THREAD)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        record_timing=False,
        # The kernel flushes a cell's prints in pieces as timing decides.
        coalesce_streams=True,
        resources={"metadata": {"path": str(ROOT / "notebooks")}},
    )
    drawn = Path(tempfile.mkdtemp(prefix="book-figures-")) if export else None
    if drawn:
        figure_export.install(client, drawn)
    try:
        client.execute()
    except CellExecutionError as error:
        raise SystemExit(f"{source}: a cell failed:\n{error}") from None
    finally:
        if drawn:
            figure_export.settle(drawn, FIGURES)


def build(name: str) -> str:
    source = ROOT / "chapters" / f"{name}.qmd"
    parsed = qmd.parse(source)
    report = []
    for edition in qmd.EDITIONS:
        notebook = convert.to_notebook(parsed, edition)
        started = time.perf_counter()
        # Both editions draw the same figures; export them once.
        execute(notebook, source, export=edition == "instructor")
        path = book.notebook_path(ROOT, name, edition)
        keep_volatile_outputs(notebook, path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
        report.append(f"{edition} {time.perf_counter() - started:.1f} s")
    return f"{name}: " + ", ".join(report)


def keep_volatile_outputs(notebook, path: Path) -> None:
    """Keep the recorded output of an unchanged timing cell (tagged
    `nbval-ignore-output`), so a diff shows only real changes."""
    cells = nbformat.read(path, 4).cells if path.exists() else []
    recorded = {cell.source: cell.get("outputs", []) for cell in cells}
    for cell in notebook.cells:
        if outputcheck.ignores_output(cell) and cell.source in recorded:
            cell.outputs = recorded[cell.source]


def export_figures() -> None:
    """Index the figures; each labelled cell must draw exactly one."""
    figures = []
    for name, _, notebook in outputcheck.notebooks(ROOT, ["instructor"]):
        for cell in notebook.cells:
            options = qmd.cell_options(cell.source)
            label = str(options.get("label", ""))
            if not label.startswith("fig-"):
                continue
            data = [o.get("data", {}) for o in cell.outputs]
            images = sum("image/png" in kinds for kinds in data)
            if images != 1:
                raise SystemExit(
                    f"chapters/{name}.qmd: '{label}' drew {images} images, "
                    "not one (end it with plt.show())"
                )
            figures.append((name, label, options))
    figure_export.write_index(FIGURES, figures, book.REGENERATE)
    missing = outputcheck.check_exported_figures(ROOT)
    if missing:
        raise SystemExit("\n".join(missing))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("chapters", nargs="*", help="default: all chapters")
    parser.add_argument("--jobs", type=int, default=2, help="at once")
    args = parser.parse_args(argv)
    try:  # parses every chapter: a broken one stops here, before a kernel
        chapters = book.notebook_chapters(ROOT)
    except qmd.QmdError as error:
        raise SystemExit(str(error)) from None
    names = args.chapters or chapters
    unknown = ", ".join(sorted(set(names) - set(chapters)))
    if unknown:
        raise SystemExit(f"no such chapter in chapters/: {unknown}")
    for name in names:
        if links.sync(ROOT, name):
            print(f"{name}: notebook and source links rewritten")
    # matplotlib builds its font cache here, not in a kernel that prints so.
    import matplotlib.font_manager  # noqa: F401

    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for line in pool.map(build, names):
            print(line, flush=True)
    export_figures()
    print(f"figures: {len(list(FIGURES.glob('*.svg')))} indexed")
    for name in names:
        if name in graded.graded_chapters():
            path = assignments.write_student_assignment(name)
            print(f"{name}: assignment {path.relative_to(ROOT)} written")


if __name__ == "__main__":
    main()
