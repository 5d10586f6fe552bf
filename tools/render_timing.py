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

This machine's speed itself varies: the same pure-Python work can take
twice as long from one second to the next (the probe below took 0.06 s to
0.12 s within one run of this script). So just before each
render a probe times a fixed piece of work (PROBE_STEPS additions), and
each step's line shows its probes beside its times: a render slowed down
by the machine shows as a slow probe.
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
PROBE_STEPS = 3_000_000


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


def probe() -> float:
    """Seconds a fixed piece of pure-Python work takes here, now."""
    started = time.perf_counter()
    total = 0
    for step in range(PROBE_STEPS):
        total += step
    return time.perf_counter() - started


def render(folder: Path, arguments: list[str]) -> tuple[float, float]:
    """`bash tools/render.sh ARGUMENTS` in folder: its wall time in s, and
    the probe's time just before it."""
    probe_seconds = probe()
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
    return seconds, probe_seconds


def one_round(chapters: list[str]) -> dict[str, tuple[float, float]]:
    """Each step's render time and probe time, in a fresh clone."""
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
    # With several rounds, each time's range stands beside its median, and
    # the probes say how fast the machine was when the step began.
    lines = []
    for step, label in labels(chapters).items():
        seconds = spread([m[step][0] for m in measured])
        probes = spread([m[step][1] for m in measured], digits=2)
        lines.append(f"{label}: {seconds} s; probe {probes} s")
    lines.append(
        f"(probe: {PROBE_STEPS:,} additions in Python just before each "
        "render; it takes longer when the machine is slower)"
    )
    return lines


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
