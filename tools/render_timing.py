"""How long the book takes to render: cold, and after one chapter changed.

    .venv/bin/python tools/render_timing.py [--rounds 1]
    .venv/bin/python tools/benchmark.py --render   # beside notebook times

Every render happens in a fresh clone of the last commit (so with the
committed _freeze/), with this project's .venv, as a reader of the README
runs it:

- cold: `bash tools/render.sh`, the first render of the clone (website
  and PDF, no _book/, no .quarto/);
- one chapter edited: a line added to chapters/mechanics.qmd, then
  `bash tools/render.sh chapters/mechanics.qmd --to html`, the edited
  chapter's page alone (Quarto executes it: freeze applies only to
  whole-book renders);
- the same page after a second edit of its prose: the chapter's code is
  as it was when it last ran, so its outputs come from Jupyter's cache
  (`execute: cache`) and no kernel starts;
- the whole book again after that edit: `bash tools/render.sh`, which
  executes only the edited chapter, once per format (the website's from
  the cache).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDITED = "chapters/mechanics.qmd"
STEPS = {
    "cold": ("render, cold, from a fresh clone (both formats)", []),
    "page": (
        f"render of the edited chapter's page ({EDITED})",
        [EDITED, "--to", "html"],
    ),
    "prose": (
        "render of that page after a second edit of its prose (cached code)",
        [EDITED, "--to", "html"],
    ),
    "book": ("render of the whole book after that edit (both formats)", []),
}


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


def one_round() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        clone = Path(folder) / "book"
        subprocess.run(
            ["git", "clone", "--quiet", str(ROOT), str(clone)], check=True
        )
        # The clone uses this project's environment: creating one is set-up,
        # not rendering.
        (clone / ".venv").symlink_to(ROOT / ".venv")
        times = {"cold": render(clone, STEPS["cold"][1])}
        chapter = clone / EDITED
        for step in ("page", "prose", "book"):
            if step != "book":
                text = chapter.read_text("utf-8")
                chapter.write_text(text + f"\nA line for {step}.\n", "utf-8")
            times[step] = render(clone, STEPS[step][1])
    return times


def report(rounds: int = 1) -> list[str]:
    if shutil.which("quarto") is None:
        return ["render: quarto is not on PATH; render times not measured"]
    measured = [one_round() for _ in range(rounds)]
    return [
        f"{label}: {statistics.median(m[step] for m in measured):.1f} s"
        for step, (label, _) in STEPS.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    for line in report(parser.parse_args().rounds):
        print(line)


if __name__ == "__main__":
    main()
