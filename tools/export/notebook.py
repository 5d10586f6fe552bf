"""A parsed chapter as nbformat cells of its notebooks (jupytext reads a
`.qmd` only through Quarto): the student edition drops instructor cells."""

from __future__ import annotations

import nbformat

from tools.export import markdown as nbmarkdown
from tools.source import qmd as qmd_module
from tools.source.numbers import load_book


def to_notebook(qmd: qmd_module.Qmd, edition: str) -> nbformat.NotebookNode:
    assert edition in qmd_module.EDITIONS, edition
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {
        "kernelspec": {
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "name": "python3",
        },
        "language_info": {"name": "python"},
    }
    cells = [
        cell
        for cell, solution in edition_cells(qmd)
        if edition == "instructor" or not solution
    ]
    # Stable ids keep the file byte-identical from one run to the next.
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number:03d}"
    notebook.cells = cells
    return notebook


def edition_cells(qmd: qmd_module.Qmd) -> list[tuple]:
    """The instructor edition's cells, each with whether it is a solution
    (the student edition is the others)."""
    root = qmd.path.resolve().parents[1]  # a chapter is in root/chapters
    chapter = nbmarkdown.Chapter(load_book(root), qmd.path)
    cells = []
    for index, part in enumerate(qmd.parts):
        if part[0] == "code":
            chunk = part[1]
            cells.append(_cell("code", chunk.source, chunk.solution))
            # Only a figure's chunk has a caption; most chunks skip YAML.
            if "fig-" in chunk.source:
                caption = chapter.caption(chunk.options)
                if caption:
                    cells.append(_cell("markdown", caption, chunk.solution))
            continue
        _, source, _, solution = part
        text = chapter.markdown(source)
        if text.strip():
            cells.append(_cell("markdown", text, solution))
        following = qmd.parts[index + 1 : index + 2]
        starter = following and following[0][0] == "code"
        exercise = None if starter else last_exercise(source)
        if exercise and exercise[1] in qmd_module.WORK:
            # A cell to work in, as the exercises with a starter have.
            number = chapter.number_text(exercise[0], "Exercise")
            scratch = f"# {number}: your code here."
            cells.append(_cell("code", scratch, solution))
        if len(cells) == 1 and chapter.heading:
            cells.append(_cell("markdown", chapter.instructor_note(), True))
    references = chapter.references()
    if references:
        cells.append(_cell("markdown", references, False))
    return cells


def last_exercise(text: str) -> tuple[str, str] | None:
    """(label, kind) of an exercise that ends text, kind as in its kind
    line (`*Compute · 10 min*`), else None."""
    lines = text.rstrip().split("\n")
    opens = [
        i for i, line in enumerate(lines) if qmd_module.DIV_OPEN.match(line)
    ]
    if not opens or not qmd_module.DIV_CLOSE.match(lines[-1]):
        return None
    exercise = qmd_module.EXERCISE_OPEN.match(lines[opens[-1]])
    kinds = [qmd_module.KIND.match(line) for line in lines[opens[-1] :]]
    kind = next((found[1] for found in kinds if found), "")
    return (exercise[1], kind) if exercise else None


def _cell(cell_type: str, source: str, solution: bool) -> tuple:
    """(a cell as `nbformat.v4.new_{cell_type}_cell(source)` makes it,
    solution), without the schema check (most of a conversion's time;
    writing checks)."""
    cell = nbformat.NotebookNode(cell_type=cell_type, source=source)
    cell.metadata = nbformat.NotebookNode()
    if cell_type == "code":
        cell.update(execution_count=None, outputs=[])
        chunk = qmd_module.Chunk(source.split("\n"), 0)
        if chunk.folded:  # `code-fold: true`, as the website folds it
            cell.metadata.jupyter = nbformat.NotebookNode(source_hidden=True)
        # The chunk's tags (a timing's `nbval-ignore-output`); most have none.
        if "#| tags:" in source:
            cell.metadata.tags = list(chunk.options.get("tags") or [])
    return cell, solution
