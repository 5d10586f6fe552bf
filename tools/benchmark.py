"""Time the README's two commands, with and without each optimisation.

    .venv/bin/python -m tools.benchmark            # the test command
    .venv/bin/python -m tools.benchmark --render   # and the render command

The test command beside plain execution of the notebooks it re-executes
(budget 1.3); `--render`, a cold render of a fresh clone with and without
side by side, and a page's render after a prose edit with and without
Jupyter's cache. Beside hyperfine (whole commands only) and `pytest
--durations` (the slowest cells). Timings vary on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat

from tools.source.book import ONE_THREAD, ROOT

os.environ.update(ONE_THREAD)
SUITE = {**os.environ, "BOOK_RENDER": "0", "BOOK_SITECHECK": "0"}
# What tools/render.sh sets: this Python runs the chapters and post-render.
RENDER = {**os.environ, "QUARTO_PYTHON": sys.executable}
RENDER["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{RENDER['PATH']}"


def execute(path: Path) -> float:
    from nbclient import NotebookClient

    client = NotebookClient(
        nbformat.read(path, 4),
        resources={"metadata": {"path": str(path.parent)}},
    )
    started = time.perf_counter()
    client.execute()
    return time.perf_counter() - started


def timed(command: list[str], folder: Path, env=None) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    lines = (result.stdout + result.stderr).strip().splitlines()
    return wall, (lines[-1] if lines else "") + f" (exit {result.returncode})"


RENDERS = {
    "bash tools/render.sh": ["bash", "tools/render.sh"],
    "  without side by side (one `quarto render`)": ["quarto", "render"],
}


def fresh_clone(folder: str) -> Path:
    clone = Path(folder) / "book"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to((ROOT / ".venv").resolve())
    return clone


def after_prose_edit(clone: Path, *options: str) -> float:
    """A one-page render of training (the slowest chapter) after an edit
    of its prose: Quarto's freeze runs the chapter again."""
    path = clone / "chapters" / "training.qmd"
    path.write_text(path.read_text("utf-8") + "\nEdited.\n", "utf-8")
    page = ["bash", "tools/render.sh", "chapters/training.qmd", "--to"]
    return timed([*page, "html", *options], clone, RENDER)[0]


def renders() -> None:
    print(f"\n{'render command, cold, fresh clone':48} {'wall':>7}")
    for name, command in RENDERS.items():
        with tempfile.TemporaryDirectory() as folder:
            wall, last = timed(command, fresh_clone(folder), RENDER)
        print(f"{name:48} {wall:6.1f}s  {last[-60:]}")
    with tempfile.TemporaryDirectory() as folder:
        clone = fresh_clone(folder)
        after_prose_edit(clone)  # executes the chapter: fills Jupyter's cache
        cached = after_prose_edit(clone)
        uncached = after_prose_edit(clone, "--no-cache")
    print(f"{'a prose edit, one page (execute: cache)':48} {cached:6.1f}s")
    print(f"{'  without the cache (--no-cache)':48} {uncached:6.1f}s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--render", action="store_true")
    arguments = parser.parse_args()
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    paths += sorted((ROOT / "notebooks" / "instructor").glob("*.ipynb"))
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        walls = list(pool.map(execute, paths))
    plain = time.perf_counter() - started
    suite, last = timed([sys.executable, "-m", "pytest", "-q"], ROOT, SUITE)
    print(f"{'notebook':42} {'execute':>8}")
    for path, wall in zip(paths, walls, strict=True):
        print(f"{str(path.relative_to(ROOT)):42} {wall:7.1f}s")
    print(f"\nplain execution, 2 at a time: {plain:.1f} s")
    print(f"test command (pytest, BOOK_RENDER=0): {suite:.1f} s; {last}")
    print(f"suite / plain: {suite / plain:.2f} (budget 1.3)")
    if arguments.render:
        renders()


if __name__ == "__main__":
    main()
