"""How long the test suite takes, beside merely executing the notebooks.

    .venv/bin/python tools/benchmark.py [--rounds 3]

Reports, per notebook and in total:

- plain execution: each notebook run top to bottom in a fresh kernel with
  nbclient (no comparison), two at a time as the suite runs them;
- the whole test suite's wall time (`pytest`, as tools/test.sh runs it on
  a machine without Quarto, as CI's does: BOOK_RENDER=0, so the render
  tests and the site check's are skipped even where Quarto is installed;
  `--render` times renders on their own) and the time nbval spent on each
  notebook;
- the slowest cells of all (three, since the first import of torch takes
  about a second in whichever cell does it);
- with `--render`, where Quarto is installed: a cold render of the book
  (website and PDF) from a fresh clone of the last commit, which reuses
  the committed _freeze/; then, for each chapter with code, its page
  after a code edit (executed) and after a prose edit (its code from the
  cache of executed chapters); then the whole book
  (tools/render_timing.py).

Timings on this shared machine vary by a tenth to a half from run to run
(the suite took 34 s and 40 s on one commit; the machine's own speed,
which render_timing.py probes before each render, swings twofold), so
each round measures all three in turn and the totals are reported as the
median over the rounds, with their range. This is a benchmark, not a
test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path

import nbformat
import render_timing
from render_timing import spread

ROOT = Path(__file__).resolve().parent.parent
os.environ.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
# The suite as the budget counts it: CI's, on a machine without Quarto.
SUITE_ENVIRONMENT = {**os.environ, "BOOK_RENDER": "0", "BOOK_SITECHECK": "0"}


def notebooks() -> list[Path]:
    """The notebooks the suite re-executes (testpaths in pyproject.toml).

    Every notebook under notebooks/: the student editions, then the
    instructor editions. pytest skips hidden folders such as Jupyter's
    .ipynb_checkpoints, and so does this.
    """
    folder = ROOT / "notebooks"
    student = sorted(folder.glob("*.ipynb"))
    instructor = sorted((folder / "instructor").glob("*.ipynb"))
    return student + instructor


def execute(path: Path) -> tuple[Path, float, list[tuple[float, str]]]:
    """Run one notebook; return its wall time and each cell's time."""
    from nbclient import NotebookClient

    notebook = nbformat.read(path, 4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    started = time.perf_counter()
    client.execute()
    wall = time.perf_counter() - started
    cells = []
    for number, cell in enumerate(notebook.cells):
        timing = cell.get("metadata", {}).get("execution", {})
        if "shell.execute_reply" not in timing:
            continue
        seconds = (
            stamp(timing["shell.execute_reply"])
            - stamp(timing["iopub.execute_input"])
        ).total_seconds()
        first_line = cell.source.split("\n")[0][:50]
        cells.append((seconds, f"cell {number} ({first_line})"))
    return path, wall, cells


def stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def suite() -> tuple[float, dict[str, float], str]:
    """Run the whole test suite; return wall time and nbval time per file."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "junit.xml"
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", f"--junitxml={report}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=SUITE_ENVIRONMENT,
        )
        wall = time.perf_counter() - started
        per_file: dict[str, float] = {}
        for case in ElementTree.parse(report).iter("testcase"):
            name = case.get("classname", "")
            key = grading_run_notebook(case.get("name", ""), name)
            if key or ".ipynb" in name or "notebooks" in name:
                key = key or name.split("::")[0]
                per_file[key] = per_file.get(key, 0.0) + float(
                    case.get("time")
                )
    summary = result.stdout.strip().splitlines()[-1] if result.stdout else ""
    return wall, per_file, summary


def grading_run_notebook(test: str, classname: str) -> str:
    """The notebook a grading run of tests/test_grading.py executes, named
    as junit names nbval's notebooks ("notebooks.instructor.systems"), or
    "" for any other test."""
    if classname != "tests.test_grading" or "[" not in test:
        return ""
    kind, _, name = test.split("[")[-1].rstrip("]").partition("-")
    folder = "notebooks." if kind == "untouched" else "notebooks.instructor."
    return (
        f"{folder}{name}.ipynb" if kind in ("untouched", "solutions") else ""
    )


def plain(paths: list[Path]) -> tuple[list, float]:
    """Execute notebooks two at a time; return the runs and the wall time."""
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(execute, paths))
    return runs, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="measure everything this many times, taking turns, and report "
        "medians: run-to-run noise here is 10%% to 50%% (default: 3)",
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="also time Quarto renders (needs quarto on PATH)",
    )
    arguments = parser.parse_args()
    rounds = arguments.rounds
    paths = notebooks()
    measured = []
    for number in range(1, rounds + 1):
        runs, plain_wall = plain(paths)
        suite_wall, nbval_times, summary = suite()
        measured.append((plain_wall, suite_wall))
        print(
            f"round {number}: suite {suite_wall:.1f} s; plain execution "
            f"{plain_wall:.1f} s"
        )

    # A graded chapter's notebooks are executed by its otter grading runs
    # (tests/test_grading.py), whose tests' time stands in the nbval column.
    print(f"\n{'notebook':42} {'execute':>8} {'nbval':>8}   (last round)")
    for path, wall, _ in runs:
        relative = str(path.relative_to(ROOT))
        # junit names a notebook by its path with dots for slashes.
        nbval = nbval_times.get(relative.replace("/", "."), 0.0)
        print(f"{relative:42} {wall:7.1f}s {nbval:7.1f}s")
    # The first cell that imports torch pays about a second for the import,
    # so the three slowest are listed, not just the first.
    cells = sorted(
        (
            (seconds, f"{path.relative_to(ROOT)} {where}")
            for path, _, timings in runs
            for seconds, where in timings
        ),
        reverse=True,
    )
    print("\nslowest cells (last round):")
    for seconds, where in cells[:3]:
        print(f"  {seconds:5.2f} s  {where}")
    print(f"pytest said: {summary}")
    plains = [plain_wall for plain_wall, _ in measured]
    suites = [suite_wall for _, suite_wall in measured]
    # Each round's suite over the same round's plain run: both saw the same
    # load on the machine.
    ratios = [suite_wall / plain_wall for plain_wall, suite_wall in measured]
    print(f"test suite (pytest, all tests): {spread(suites)} s wall")
    print(
        f"plain execution of the {len(paths)} notebooks the suite "
        f"re-executes, 2 at a time: {spread(plains)} s wall"
    )
    print(f"suite / plain: {spread(ratios, digits=2)}")
    if arguments.render:
        for line in render_timing.report(rounds, every_chapter=True):
            print(line)


if __name__ == "__main__":
    main()
