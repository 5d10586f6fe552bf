"""Read a chapter's `.qmd` source and turn it into notebook cells.

- each ```{python} chunk becomes one code cell, its `#|` option lines kept
  first, exactly as written (as `quarto convert` makes it);
- everything else becomes Markdown cells, one for each stretch between two
  code cells, written as the website shows it (tools/nbmarkdown.py: a
  title cell first, numbered references, captions, author-year citations
  and a References cell last);
- an exercise done in code (Compute, Implement, Measure) that has no
  starter cell of its own is followed by an empty one to work in,
  `# Exercise 1.4: your code here.`;
- the YAML front matter reaches no cell.

The book keeps worked solutions inside
`::: {.content-visible when-profile="instructor"}` divs: the student edition
drops those divs with everything in them (code included); the instructor
edition keeps them. The website-only explorers, in
`::: {.content-visible when-format="html"}` divs of `{ojs}` cells, are left
out of both, since a notebook cannot run them; the chapter's prose before
the div says what the website shows there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

EDITIONS = ("student", "instructor")
INSTRUCTOR_DIV = re.compile(
    r"^:{3,}\s*\{[^}]*\.content-visible[^}]*"
    r"when-profile\s*=\s*\"?instructor\"?[^}]*\}\s*$"
)
PYTHON_CHUNK = re.compile(r"^(`{3,})\{python\}\s*$")
ANY_FENCE = re.compile(r"^(`{3,}|~{3,})")
DIV_OPEN = re.compile(r"^:{3,}\s*\S")
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
EXERCISE_OPEN = re.compile(r"^:{3,}\s*\{#(exr-[\w-]+)[^}]*\}\s*$")
KIND = re.compile(r"^\*(\w+) · [^*]+\*$")
# The kinds of exercise done in code (an Explain exercise is written).
WORK = ("Compute", "Implement", "Measure")


# PyYAML's libyaml parser where the wheel has it: the same results as
# yaml.safe_load, about ten times faster (the checks parse every chunk's
# options many times).
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str):
    """What `yaml.safe_load(text)` returns, parsed by YAML_LOADER."""
    return yaml.load(text, Loader=YAML_LOADER)


class QmdError(ValueError):
    """A `.qmd` file the converter cannot read, with file and line."""


@dataclass
class Chunk:
    """One ```{python} chunk: its source lines and where it starts."""

    lines: list[str]
    line: int
    solution: bool = False

    @property
    def options(self) -> dict:
        """The chunk's `#|` options, parsed as YAML."""
        option_lines = []
        for text in self.lines:
            if not text.startswith("#|"):
                break
            option_lines.append(text[2:].removeprefix(" "))
        parsed = load_yaml("\n".join(option_lines)) if option_lines else {}
        return parsed or {}

    @property
    def source(self) -> str:
        return "\n".join(self.lines)

    @property
    def folded(self) -> bool:
        """Whether the website shows only the chunk's summary (code-fold)."""
        # Most chunks have no such option: they skip parsing YAML.
        return "code-fold" in self.source and self.options.get(
            "code-fold"
        ) not in (None, False, "none", "false")


@dataclass
class Qmd:
    """A parsed chapter: front matter and an ordered list of parts."""

    path: Path
    front_matter: str
    # Each part is ("markdown", text, line, solution) or ("code", Chunk).
    parts: list = field(default_factory=list)
    # (book, cells) from edition_cells, while the book is unchanged.
    converted: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def metadata(self) -> dict:
        return load_yaml(self.front_matter.strip().strip("-")) or {}

    def chunks(self) -> list[Chunk]:
        return [part[1] for part in self.parts if part[0] == "code"]

    def solutions(self) -> list[str]:
        """The text of every instructor-only stretch: prose and code."""
        return [
            part[1].source if part[0] == "code" else part[1]
            for part in self.parts
            if (part[1].solution if part[0] == "code" else part[3])
        ]

    def prose(self, edition: str = "instructor") -> str:
        """All markdown of the chapter (solutions only for instructors)."""
        return "\n".join(
            part[1]
            for part in self.parts
            if part[0] == "markdown"
            and (edition == "instructor" or not part[3])
        )


def parse(path: Path | str) -> Qmd:
    """Split a `.qmd` file into front matter, markdown and python chunks.

    Raises QmdError naming the file and line for an unclosed front matter,
    code chunk or fenced div, and for a stray closing `:::`.
    """
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    where = f"{path}"
    front = ""
    start = 0
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() in ("---", "..."):
                front = "\n".join(lines[: index + 1])
                start = index + 1
                break
        else:
            raise QmdError(f"{where}:1: front matter '---' is never closed")

    qmd = Qmd(path=path, front_matter=front)
    markdown: list[str] = []
    markdown_line = start + 1
    # Stack of open divs: (line number, is an instructor-only div).
    divs: list[tuple[int, bool]] = []
    fence: tuple[str, int] | None = None  # an open non-python code fence

    def in_solution() -> bool:
        return any(instructor for _, instructor in divs)

    def flush(next_line: int, solution: bool | None = None) -> None:
        nonlocal markdown, markdown_line
        if solution is None:
            solution = in_solution()
        joined = "\n".join(markdown)
        text = joined.lstrip("\n")
        # The part starts at its first line with text: skip the blank ones.
        first_line = markdown_line + len(joined) - len(text)
        text = text.rstrip("\n")
        if text.strip():
            qmd.parts.append(("markdown", text, first_line, solution))
        markdown = []
        markdown_line = next_line

    index = start
    while index < len(lines):
        text = lines[index]
        number = index + 1
        if fence is not None:
            markdown.append(text)
            marker = fence[0]
            if text.strip() == marker[0] * len(text.strip()) and len(
                text.strip()
            ) >= len(marker):
                fence = None
            index += 1
            continue
        chunk_start = PYTHON_CHUNK.match(text)
        if chunk_start:
            ticks = chunk_start.group(1)
            body: list[str] = []
            end = index + 1
            while end < len(lines) and not re.fullmatch(
                rf"`{{{len(ticks)},}}\s*", lines[end]
            ):
                body.append(lines[end])
                end += 1
            if end == len(lines):
                raise QmdError(
                    f"{where}:{number}: python chunk opened here is never "
                    "closed (add a line with ``` after its code)"
                )
            # Markdown before the chunk ends where the chunk starts.
            solution = in_solution()
            flush(end + 2)
            qmd.parts.append(
                ("code", Chunk(lines=body, line=number, solution=solution))
            )
            index = end + 1
            continue
        other_fence = ANY_FENCE.match(text)
        if other_fence:
            fence = (other_fence.group(1), number)
            markdown.append(text)
            index += 1
            continue
        if DIV_CLOSE.match(text):
            if not divs:
                raise QmdError(
                    f"{where}:{number}: ':::' closes a div that was never "
                    "opened"
                )
            _, instructor = divs.pop()
            markdown.append(text)
            if instructor:
                # A solution div ends its own stretch of markdown.
                flush(number + 1, solution=True)
            index += 1
            continue
        if DIV_OPEN.match(text):
            instructor = bool(INSTRUCTOR_DIV.match(text))
            if instructor:
                flush(number)
            divs.append((number, instructor))
            markdown.append(text)
            index += 1
            continue
        markdown.append(text)
        index += 1
    if fence is not None:
        raise QmdError(
            f"{where}:{fence[1]}: code fence {fence[0]} opened here is "
            "never closed"
        )
    if divs:
        raise QmdError(
            f"{where}:{divs[-1][0]}: fenced div ':::' opened here is never "
            "closed"
        )
    flush(len(lines) + 1)
    return qmd


def to_notebook(qmd: Qmd, edition: str) -> nbformat.NotebookNode:
    """The notebook cells of one edition, without outputs."""
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, not {edition}")
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


def edition_cells(qmd: Qmd) -> list[tuple[nbformat.NotebookNode, bool]]:
    """The instructor edition's cells, each with whether it is a solution.

    The student edition is exactly these cells without the solutions.
    Markdown reads as the website does (tools/nbmarkdown.py): a title cell
    first, numbered references, a caption after each figure, a References
    cell last; the front matter stays in the `.qmd`.
    """
    import nbmarkdown

    book = nbmarkdown.load_book(nbmarkdown.find_root(qmd.path))
    # Both editions and several checks convert a chapter: translate once.
    if qmd.converted is None or qmd.converted[0] is not book:
        qmd.converted = (
            book,
            _translate(qmd, nbmarkdown.Chapter(book, qmd.path)),
        )
    return [
        (_cell(kind, source, folded), solution)
        for kind, source, solution, folded in qmd.converted[1]
    ]


def _translate(qmd: Qmd, chapter) -> list[tuple[str, str, bool, bool]]:
    """(cell type, source, is a solution, is folded) of every cell."""
    cells = []
    for index, part in enumerate(qmd.parts):
        if part[0] == "code":
            chunk = part[1]
            cells.append(("code", chunk.source, chunk.solution, chunk.folded))
            # Only a figure's chunk has a caption; most chunks skip YAML.
            if "fig-" in chunk.source:
                caption = chapter.caption(chunk.options)
                if caption:
                    cells.append(("markdown", caption, chunk.solution, False))
            continue
        _, source, _, solution = part
        text = chapter.markdown(source)
        if text.strip():
            cells.append(("markdown", text, solution, False))
        following = qmd.parts[index + 1 : index + 2]
        starter = following and following[0][0] == "code"
        exercise = None if starter else last_exercise(source)
        if exercise and exercise[1] in WORK:
            # A cell to work in, as the exercises with a starter have.
            number = chapter.number_text(exercise[0], "Exercise")
            scratch = f"# {number}: your code here."
            cells.append(("code", scratch, solution, False))
        if len(cells) == 1 and chapter.heading:
            cells.append(("markdown", chapter.instructor_note(), True, False))
    references = chapter.references()
    if references:
        cells.append(("markdown", references, False, False))
    return cells


def last_exercise(text: str) -> tuple[str, str] | None:
    """(label, kind) of an exercise that ends text, else None.

    The kind is the first word of its kind line (`*Compute · 10 min*`).
    """
    lines = text.rstrip().split("\n")
    if not DIV_CLOSE.match(lines[-1]):
        return None
    for index in range(len(lines) - 1, -1, -1):
        opened = EXERCISE_OPEN.match(lines[index])
        if opened:
            kinds = (KIND.match(line) for line in lines[index + 1 :])
            kind = next((k.group(1) for k in kinds if k), "")
            return opened.group(1), kind
        if DIV_OPEN.match(lines[index]):
            return None  # the last div to open is no exercise
    return None


def _cell(
    cell_type: str, source: str, folded: bool = False
) -> nbformat.NotebookNode:
    """A cell as `nbformat.v4.new_{cell_type}_cell(source)` makes it.

    Those functions check each new cell against the notebook schema, which
    took most of the time of converting the book (the checks convert it
    often). `nbformat.write` still checks the whole notebook.

    A folded cell (`code-fold: true`: the figure style, a figure's code, a
    self-check's machinery) shows only its summary on the website; in
    JupyterLab and Notebook 7 its code is collapsed likewise
    (`source_hidden`), one click from view, and it runs as any cell does.
    """
    metadata = nbformat.NotebookNode()
    if folded:
        metadata.jupyter = nbformat.NotebookNode(source_hidden=True)
    # The chunk's tags (a timing's `nbval-ignore-output`); most have none.
    if cell_type == "code" and "#| tags:" in source:
        metadata.tags = list(cell_options(source).get("tags") or [])
    cell = nbformat.NotebookNode(
        cell_type=cell_type, metadata=metadata, source=source
    )
    if cell_type == "code":
        cell.execution_count = None
        cell.outputs = []
    return cell


def cell_options(source: str) -> dict:
    """The `#|` options at the top of a notebook code cell's source."""
    return Chunk(source.split("\n"), 0).options


def cell_signature(notebook: nbformat.NotebookNode) -> list[tuple]:
    """What the sync test compares: each cell's type, source, fold, tags."""
    return [
        (
            cell.cell_type,
            cell.source,
            bool(cell.metadata.get("jupyter", {}).get("source_hidden")),
            cell.metadata.get("tags", []),
        )
        for cell in notebook.cells
    ]
