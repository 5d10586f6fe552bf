"""How long the book takes to render: cold, and after one chapter changed.

    .venv/bin/python tools/render_timing.py [--rounds 3] [--chapters all]
    .venv/bin/python tools/benchmark.py --render   # beside notebook times

Every render happens in a fresh clone of the last commit (so with the
committed _freeze/), with this project's .venv, as a reader of the README
runs it:

- cold: `bash tools/render.sh`, the first render of the clone (website
  and PDF, no _book/, no .quarto/);
- for each chapter (by default the one the timings began with,
  chapters/mechanics.qmd; `--chapters all` for every chapter with code):
  - a code edit: a comment added to its first code cell (after its
    options), then
    `bash tools/render.sh chapters/x.qmd --to html`, the chapter's page
    alone, executed (Quarto applies freeze only to whole-book renders,
    and Jupyter's cache holds the code as it was);
  - a prose edit: a line added to its text, then the same page again;
    its code is as it was when it last ran, so its outputs come from
    Jupyter's cache (`execute: cache`) and no kernel starts;
- each render leaves its kernel server for the next (tools/warm_server.py),
  so a code edit's kernel is forked from the one the render before left,
  as when an author renders one page after another;
- the whole book after those edits: `bash tools/render.sh`, which
  executes the edited chapters once per format.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST = "chapters/mechanics.qmd"
CODE_CELL = re.compile(r"^```\{python\}\n", re.M)
# A cell's header and its `#|` options, which must stay first to count.
CELL_HEAD = re.compile(CODE_CELL.pattern + r"(?:#\|.*\n)*", re.M)


def chapters_with_code(root: Path) -> list[str]:
    """The chapters (in chapters/) that have a code cell."""
    return [
        str(path.relative_to(root))
        for path in sorted((root / "chapters").glob("*.qmd"))
        if CODE_CELL.search(path.read_text("utf-8"))
    ]


def code_edit(text: str, mark: str) -> str:
    """text with a comment added to its first code cell, after its options."""
    return CELL_HEAD.sub(lambda m: m.group(0) + f"# {mark}\n", text, 1)


def prose_edit(text: str, mark: str) -> str:
    return text + f"\nA line for {mark}.\n"


def render(folder: Path, arguments: list[str]) -> float:
    """`bash tools/render.sh ARGUMENTS` in folder; the wall time in s."""
    started = time.perf_counter()
    result = subprocess.run(
        ["bash", "tools/render.sh", *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        output = (result.stdout + result.stderr)[-3000:]
        raise RuntimeError(f"tools/render.sh failed:\n{output}")
    return seconds


def one_round(chapters: list[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        clone = Path(folder) / "book"
        subprocess.run(
            ["git", "clone", "--quiet", str(ROOT), str(clone)], check=True
        )
        # The clone uses this project's environment: creating one is set-up,
        # not rendering.
        (clone / ".venv").symlink_to(ROOT / ".venv")
        times = {"cold": render(clone, [])}
        for chapter in chapters:
            source = clone / chapter
            page = [chapter, "--to", "html"]
            for kind, edit in (("code", code_edit), ("prose", prose_edit)):
                text = source.read_text("utf-8")
                source.write_text(edit(text, f"a {kind} edit"), "utf-8")
                times[f"{kind} {chapter}"] = render(clone, page)
        times["book"] = render(clone, [])
    return times


def labels(chapters: list[str]) -> dict[str, str]:
    steps = {"cold": "render, cold, from a fresh clone (both formats)"}
    for chapter in chapters:
        steps[f"code {chapter}"] = f"page after a code edit ({chapter})"
        steps[f"prose {chapter}"] = (
            f"page after a prose edit ({chapter}, code from the cache)"
        )
    steps["book"] = "render of the whole book after those edits"
    return steps


def report(rounds: int = 1, every_chapter: bool = False) -> list[str]:
    if shutil.which("quarto") is None:
        return ["render: quarto is not on PATH; render times not measured"]
    chapters = chapters_with_code(ROOT) if every_chapter else [FIRST]
    measured = [one_round(chapters) for _ in range(rounds)]
    # This machine's times vary by a tenth or more: with several rounds,
    # their range stands beside the median.
    return [
        f"{label}: {spread([m[step] for m in measured])} s"
        for step, label in labels(chapters).items()
    ]


def spread(values: list[float], digits: int = 1) -> str:
    """The median, and the range when there is more than one value."""
    text = f"{statistics.median(values):.{digits}f}"
    if len(values) > 1:
        text += f" ({min(values):.{digits}f} to {max(values):.{digits}f})"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--chapters", choices=["first", "all"])
    arguments = parser.parse_args()
    for line in report(arguments.rounds, arguments.chapters == "all"):
        print(line)


if __name__ == "__main__":
    main()
