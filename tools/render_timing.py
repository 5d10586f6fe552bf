"""How long Quarto takes to render the book: cold, and after one edit.

    .venv/bin/python tools/render_timing.py [--rounds 1]
    .venv/bin/python tools/benchmark.py --render   # beside notebook times

Both renders happen in a fresh clone of the last commit (so with the
committed _freeze/), with the book's Python (QUARTO_PYTHON, as
tools/render.sh sets it) and both formats, as `bash tools/render.sh` does:

- cold: the first render of the clone (no _book/, no .quarto/);
- one chapter edited: a line added to chapters/mechanics.qmd, then the
  whole book rendered again (Quarto executes only that chapter).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDITED = "chapters/mechanics.qmd"


def render(folder: Path) -> float:
    """Render the book in folder; return the wall time in seconds."""
    environment = {
        **os.environ,
        "QUARTO_PYTHON": sys.executable,
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    started = time.perf_counter()
    result = subprocess.run(
        ["quarto", "render"],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"quarto render failed:\n{result.stderr[-3000:]}")
    return seconds


def one_round() -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        clone = Path(folder) / "book"
        subprocess.run(
            ["git", "clone", "--quiet", str(ROOT), str(clone)], check=True
        )
        cold = render(clone)
        chapter = clone / EDITED
        chapter.write_text(
            chapter.read_text("utf-8") + "\nOne more line.\n", "utf-8"
        )
        edited = render(clone)
    return cold, edited


def report(rounds: int = 1) -> list[str]:
    if shutil.which("quarto") is None:
        return ["render: quarto is not on PATH; render times not measured"]
    times = [one_round() for _ in range(rounds)]
    cold = statistics.median(t[0] for t in times)
    edited = statistics.median(t[1] for t in times)
    return [
        f"render, cold, from a fresh clone (both formats): {cold:.1f} s",
        f"render after editing {EDITED}: {edited:.1f} s",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    for line in report(parser.parse_args().rounds):
        print(line)


if __name__ == "__main__":
    main()
