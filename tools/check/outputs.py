"""Checks of what tools/regenerate.py writes, each `check(root) ->
problems`: notebooks in sync with their chapters and with each other, prose
numbers, clean and labelled outputs, exported figures. nbval compares
printed outputs; none of this does any tool know.
"""

from __future__ import annotations

import re
from itertools import zip_longest
from pathlib import Path

import nbformat

from tools.export import notebook as convert
from tools.export.figures import EXPORT_DPI, FORMATS, index_files, png_dpi
from tools.source import book as bookfiles
from tools.source import qmd as qmd_module

# A timing cell's tag (`#| tags: [...]`): nbval leaves its output alone.
IGNORE_OUTPUT = "nbval-ignore-output"
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?")


def ignores_output(cell: nbformat.NotebookNode) -> bool:
    return IGNORE_OUTPUT in cell.get("metadata", {}).get("tags", [])


def check_notebooks_in_sync(root: Path) -> list[str]:
    problems = []
    names = bookfiles.notebook_chapters(root)
    for name in names:
        qmd = qmd_module.parse(root / "chapters" / f"{name}.qmd")
        for edition in qmd_module.EDITIONS:
            path = bookfiles.notebook_path(root, name, edition)
            relative = path.relative_to(root)
            command = f"{bookfiles.REGENERATE} {name}"
            if not path.exists():
                problems.append(f"{relative} is missing: run `{command}`")
                continue
            first = _first_difference(
                convert.to_notebook(qmd, edition).cells,
                nbformat.read(path, 4).cells,
                # Metadata too: a cell's fold and tags.
                lambda cell: (cell.cell_type, cell.source, cell.metadata),
            )
            if first is not None:
                problems.append(
                    f"{relative} is out of date with chapters/{name}.qmd "
                    f"(cells differ from cell {first} on): run `{command}`"
                )
    for edition in qmd_module.EDITIONS:
        folder = bookfiles.notebook_path(root, "x", edition).parent
        for path in sorted(folder.glob("*.ipynb")):
            if path.stem not in names:
                problems.append(
                    f"{path.relative_to(root)}: no chapter, delete it"
                )
    return problems


def check_prose_numbers(root: Path) -> list[str]:
    """Each `prose-numbers: [{text: ..., cell: ...}]` of the front matter
    is in the prose, and its numbers, in order, in that cell's output."""
    problems = []
    for name, _, notebook in notebooks(root, ["instructor"]):
        relative = f"chapters/{name}.qmd"
        qmd = qmd_module.parse(root / relative)
        prose = _thousands(qmd.prose())
        printed = {
            str(label): "".join(output_texts(cell, ("text/plain",)))
            for cell in notebook.cells
            if (label := qmd_module.cell_options(cell.source).get("label"))
        }
        for claim in qmd.metadata.get("prose-numbers") or []:
            text, cell = str(claim.get("text")), str(claim.get("cell"))
            if _thousands(text) not in prose:
                problems.append(
                    f"{relative}: prose-numbers lists '{text}', not in prose"
                )
            if cell not in printed:
                problems.append(
                    f"{relative}: prose-numbers: no code cell '{cell}'"
                )
                continue
            wanted, said = _numbers(text), _numbers(printed[cell])
            size = len(wanted)  # wanted is a run of said, in order
            if not size or wanted not in (
                said[i : i + size] for i in range(len(said))
            ):
                problems.append(
                    f"{relative}: the prose says '{text}', but cell '{cell}' "
                    f"prints {printed[cell].strip()[:200]!r}"
                )
    return problems


def _thousands(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)


def _numbers(text: str) -> list[float]:
    return [float(number) for number in NUMBER.findall(_thousands(text))]


def output_texts(cell, kinds: tuple[str, ...] = ("text/",)) -> list[str]:
    """What a cell printed, and its outputs' data of the kinds given."""
    texts = []
    for output in cell.get("outputs", []):
        texts.append(output.get("text", ""))
        for kind, data in output.get("data", {}).items():
            if kind.startswith(kinds):
                texts.append("".join(data))
    return texts


def check_clean_outputs(root: Path) -> list[str]:
    problems = []
    for _, path, notebook in notebooks(root, qmd_module.EDITIONS):
        for number, cell in enumerate(notebook.cells):
            for output in cell.get("outputs", []):
                kind = output.get("output_type")
                if kind == "error" or output.get("name") == "stderr":
                    text = output.get("text") or output.get("evalue", "")
                    what = "an error" if kind == "error" else "stderr"
                    problems.append(
                        f"{path}: cell {number} recorded {what}: "
                        f"{text.strip()[:160]}"
                    )
    return problems


def notebooks(root: Path, editions):
    """(chapter, path, notebook) of every notebook there is."""
    for name in bookfiles.notebook_chapters(root):
        for edition in editions:
            path = bookfiles.notebook_path(root, name, edition)
            if path.exists():
                yield name, path.relative_to(root), read(path)


def read(path: Path) -> nbformat.NotebookNode:
    # Without nbformat's schema check: the sync check and nbval make it.
    return nbformat.v4.nbjson.reads(path.read_text(encoding="utf-8"))


def flagged_cells(root: Path, name: str, solutions: bool) -> list:
    """(number, cell) of the instructor notebook's solution cells, or of
    its other cells, as the chapter flags them; none while it is stale."""
    path = bookfiles.notebook_path(root, name, "instructor")
    if not path.exists():
        return []
    parsed = qmd_module.parse(root / "chapters" / f"{name}.qmd")
    flags = [secret for _, secret in convert.edition_cells(parsed)]
    cells = read(path).cells
    if len(cells) != len(flags):
        return []  # check_notebooks_in_sync says so
    return [
        (number, cell)
        for number, (cell, secret) in enumerate(zip(cells, flags, strict=True))
        if secret == solutions
    ]


def check_figure_outputs(root: Path) -> list[str]:
    problems = []
    for name, _, notebook in notebooks(root, ["instructor"]):
        for cell in notebook.cells:
            label = str(qmd_module.cell_options(cell.source).get("label", ""))
            shown = {
                k for o in cell.get("outputs", []) for k in o.get("data", {})
            }
            where = f"chapters/{name}.qmd: '{label}'"
            if "image/svg+xml" in shown:
                problems.append(f"{where} outputs SVG")
            if "image/png" in shown and not label.startswith("fig-"):
                problems.append(f"{where}: a figure without a 'fig-' label")
    return problems


def check_exported_figures(root: Path) -> list[str]:
    problems = []
    index = root / "figures" / "README.md"
    index = index.read_text(encoding="utf-8") if index.exists() else ""
    fix = f": run `{bookfiles.REGENERATE}`"
    for relative, qmd in bookfiles.parsed_book(root)[0].items():
        for chunk in qmd.chunks():
            label = str(chunk.options.get("label", ""))
            if not label.startswith("fig-"):
                continue
            for kind in FORMATS:
                path = root / "figures" / f"{label}.{kind}"
                where = f"{relative}: figures/{label}.{kind}"
                if not path.exists():
                    problems.append(f"{where}: no exported file{fix}")
                elif kind == "png" and round(png_dpi(path) or 0) < EXPORT_DPI:
                    problems.append(
                        f"{where} is not a {EXPORT_DPI}-dpi export"
                    )
            if f"| {index_files(label)} |" not in index:
                problems.append(
                    f"{relative}: figure '{label}' has no entry in "
                    f"figures/README.md{fix}"
                )
    return problems


def check_editions_agree(root: Path) -> list[str]:
    """The student notebook is the instructor one without solutions,
    outputs included (a solution may change what later cells print)."""
    problems = []
    for name, relative, notebook in notebooks(root, ["student"]):
        public = [cell for _, cell in flagged_cells(root, name, False)]
        first = _first_difference(notebook.cells, public, _shown)
        if public and first is not None:  # none public: a stale edition
            problems.append(
                f"{relative}: cell {first} differs from the instructor "
                f"edition's: run `{bookfiles.REGENERATE} {name}`, or seed the "
                "random draws a solution cell changes"
            )
    return problems


def _shown(cell) -> tuple:
    # Outputs nbval ignores (timings) differ from run to run; execution
    # counts differ between the editions.
    outputs = [{**o, "execution_count": 0} for o in cell.get("outputs", [])]
    return cell.source, None if ignores_output(cell) else outputs


def _first_difference(cells: list, others: list, key) -> int | None:
    pairs = zip_longest(map(key, cells), map(key, others))
    return next((i for i, (a, b) in enumerate(pairs) if a != b), None)
