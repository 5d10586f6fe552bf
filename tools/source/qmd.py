"""Read a chapter's `.qmd` source: front matter, Markdown and code chunks.

tools/export/notebook.py turns what this reads into notebook cells:

- each ```{python} chunk becomes one code cell, its `#|` option lines kept
  first, exactly as written (as `quarto convert` makes it);
- everything else becomes Markdown cells, one for each stretch between two
  code cells, written as the website shows it (tools/export/markdown.py: a
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

Why hand-written: jupytext reads `.qmd` only through Quarto's own
`quarto convert`, which the tests must not need, and `quarto convert`
keeps Quarto's Markdown as written and cannot leave one edition's
instructor-only divs out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

EDITIONS = ("student", "instructor")
INSTRUCTOR_DIV = re.compile(
    r"^:{3,}\s*\{[^}]*\.content-visible[^}]*"
    r"when-profile\s*=\s*\"?instructor\"?[^}]*\}\s*$"
)
PYTHON_CHUNK = re.compile(r"^(`{3,})\{python\}\s*$")
# A code fence of any language, indented or not.
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# A div opening, its attributes or class name as group 1.
DIV_OPEN = re.compile(r"^:{3,}\s*\{?([^}\s][^}]*?)\}?\s*$")
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
        other_fence = FENCE.match(text)
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


def cell_options(source: str) -> dict:
    """The `#|` options at the top of a notebook code cell's source."""
    return Chunk(source.split("\n"), 0).options


def code_fence(line: str, fence: str | None) -> tuple[str | None, bool]:
    """The open code fence after `line`, and whether `line` is code."""
    if fence is None:
        opened = FENCE.match(line)
        return (opened.group(1), True) if opened else (None, False)
    closed = re.fullmatch(rf"\s*{fence[0]}{{{len(fence)},}}\s*", line)
    return (None if closed else fence), True
