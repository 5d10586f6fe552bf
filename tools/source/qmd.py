"""A chapter's `.qmd` as front matter, Markdown parts and python chunks,
each flagged as a solution inside an instructor-only div. jupytext reads
`.qmd` only through `quarto convert`: the tests must not need Quarto, and
it cannot drop one edition's divs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import takewhile
from pathlib import Path

import yaml

EDITIONS = ("student", "instructor")
INSTRUCTOR_DIV = re.compile(
    r"^:{3,}\s*\{[^}]*\.content-visible[^}]*"
    r"when-profile\s*=\s*\"?instructor\"?[^}]*\}\s*$"
)
PYTHON_CHUNK = re.compile(r"^(`{3,})\{python\}\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
DIV_OPEN = re.compile(r"^:{3,}\s*\{?([^}\s][^}]*?)\}?\s*$")
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
EXERCISE_OPEN = re.compile(r"^:{3,}\s*\{#(exr-[\w-]+)[^}]*\}\s*$")
KIND = re.compile(r"^\*(\w+) · [^*]+\*$")
# The kinds of exercise done in code (an Explain exercise is written).
WORK = ("Compute", "Implement", "Measure")
# libyaml where the wheel has it: ten times faster than yaml.safe_load.
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str):
    return yaml.load(text, Loader=YAML_LOADER)


class QmdError(ValueError):
    """A `.qmd` the converter cannot read, with its file and line."""


@dataclass
class Chunk:
    lines: list[str]
    line: int
    solution: bool = False

    @property
    def options(self) -> dict:
        lines = takewhile(lambda text: text.startswith("#|"), self.lines)
        options = "\n".join(text[2:].removeprefix(" ") for text in lines)
        return (load_yaml(options) if options else None) or {}

    @property
    def source(self) -> str:
        return "\n".join(self.lines)

    @property
    def folded(self) -> bool:
        # Most chunks have no such option: they skip parsing YAML.
        fold = "code-fold" in self.source and self.options.get("code-fold")
        return fold not in (None, False, "none", "false")


@dataclass
class Qmd:
    path: Path
    front_matter: str
    # Each part is ("markdown", text, line, solution) or ("code", Chunk).
    parts: list = field(default_factory=list)

    @property
    def metadata(self) -> dict:
        return load_yaml(self.front_matter.strip().strip("-")) or {}

    def chunks(self) -> list[Chunk]:
        return [part[1] for part in self.parts if part[0] == "code"]

    def prose(self, edition: str = "instructor") -> str:
        return "\n".join(
            part[1]
            for part in self.parts
            if part[0] == "markdown"
            and (edition == "instructor" or not part[3])
        )


def parse(path: Path | str) -> Qmd:
    """The parsed file; QmdError names where anything is left unclosed."""
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    start = 0
    if lines[0].strip() == "---":
        ends = [i for i, t in enumerate(lines) if t.strip() in ("---", "...")]
        if len(ends) < 2:
            raise QmdError(f"{path}:1: front matter '---' is never closed")
        start = ends[1] + 1
    qmd = Qmd(path=path, front_matter="\n".join(lines[:start]))
    markdown: list[str] = []
    first = start + 1  # the line number of markdown[0]
    divs: list[tuple[int, bool]] = []  # open divs: (line, instructor-only)
    fence, fence_line = None, 0  # an open code fence, and its line
    chunk = False  # whether that fence opened a python chunk

    def flush(next_line: int, solution: bool | None = None) -> None:
        nonlocal markdown, first
        joined = "\n".join(markdown)
        text = joined.lstrip("\n")
        if solution is None:
            solution = any(instructor for _, instructor in divs)
        if text.strip():
            line = first + len(joined) - len(text)
            qmd.parts.append(("markdown", text.rstrip("\n"), line, solution))
        markdown, first = [], next_line

    for index, text in enumerate(lines[start:], start):
        number = index + 1
        was, (fence, in_code) = fence, code_fence(text, fence)
        fence_line = number if was is None else fence_line
        if was is None and PYTHON_CHUNK.match(text):
            chunk = True
            continue
        if chunk:  # the chunk's code, or the fence that closes it
            if fence is None:
                code = lines[fence_line:index]  # from the line after its fence
                solution = any(instructor for _, instructor in divs)
                flush(number + 1)
                qmd.parts.append(("code", Chunk(code, fence_line, solution)))
                chunk = False
            continue
        instructor = not in_code and bool(INSTRUCTOR_DIV.match(text))
        if instructor:
            flush(number)  # a solution div starts its own part
        markdown.append(text)
        if in_code:
            continue
        if DIV_CLOSE.match(text):
            if not divs:
                raise QmdError(
                    f"{path}:{number}: ':::' closes a div that was never "
                    "opened"
                )
            if divs.pop()[1]:
                flush(number + 1, solution=True)
        elif DIV_OPEN.match(text):
            divs.append((number, instructor))
    if fence is not None:
        what = "python chunk" if chunk else f"code fence {fence}"
        raise QmdError(
            f"{path}:{fence_line}: {what} opened here is never closed (add "
            f"a line with {fence} after it)"
        )
    if divs:
        raise QmdError(f"{path}:{divs[-1][0]}: fenced div ':::' never closed")
    flush(len(lines) + 1)
    return qmd


def cell_options(source: str) -> dict:
    return Chunk(source.split("\n"), 0).options


def code_fence(line: str, fence: str | None) -> tuple[str | None, bool]:
    """The open code fence after `line`, and whether `line` is code."""
    if fence is None:
        opened = FENCE.match(line)
        return (opened.group(1), True) if opened else (None, False)
    closed = re.fullmatch(rf"\s*{fence[0]}{{{len(fence)},}}\s*", line)
    return (None if closed else fence), True
