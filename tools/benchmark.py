"""How long the test suite takes, beside merely executing the notebooks.

    .venv/bin/python tools/benchmark.py

Reports, per notebook and in total:

- plain execution: each notebook run top to bottom in a fresh kernel with
  nbclient (no comparison), two at a time as the suite runs them;
- the whole test suite's wall time (`pytest`, as tools/test.sh runs it) and
  the time nbval spent on each notebook;
- the slowest cell of all.

This is a benchmark, not a test: it asserts nothing.
"""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parent.parent
os.environ.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})


def notebooks() -> list[Path]:
    """The notebooks the suite re-executes (testpaths in pyproject.toml)."""
    return sorted((ROOT / "notebooks" / "instructor").glob("*.ipynb"))


def execute(path: Path) -> tuple[Path, float, float, str]:
    """Run one notebook; return its wall time and its slowest cell."""
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
    slowest, where = 0.0, ""
    for number, cell in enumerate(notebook.cells):
        timing = cell.get("metadata", {}).get("execution", {})
        if "shell.execute_reply" not in timing:
            continue
        seconds = (
            stamp(timing["shell.execute_reply"])
            - stamp(timing["iopub.execute_input"])
        ).total_seconds()
        if seconds > slowest:
            first_line = cell.source.split("\n")[0][:50]
            slowest, where = seconds, f"cell {number} ({first_line})"
    return path, wall, slowest, where


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
        )
        wall = time.perf_counter() - started
        per_file: dict[str, float] = {}
        for case in ElementTree.parse(report).iter("testcase"):
            name = case.get("classname", "")
            if ".ipynb" in name or "notebooks" in name:
                key = name.split("::")[0]
                per_file[key] = per_file.get(key, 0.0) + float(
                    case.get("time")
                )
    summary = result.stdout.strip().splitlines()[-1] if result.stdout else ""
    return wall, per_file, summary


def plain(paths: list[Path]) -> tuple[list, float]:
    """Execute notebooks two at a time; return the runs and the wall time."""
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(execute, paths))
    return runs, time.perf_counter() - started


def main() -> None:
    instructor = notebooks()
    student = sorted((ROOT / "notebooks").glob("*.ipynb"))
    runs, instructor_wall = plain(instructor)
    _, all_wall = plain(student + instructor)
    suite_wall, nbval_times, summary = suite()

    print(f"{'notebook':42} {'execute':>8} {'nbval':>8}")
    for path, wall, _, _ in runs:
        relative = str(path.relative_to(ROOT))
        # junit names a notebook by its path with dots for slashes.
        nbval = nbval_times.get(relative.replace("/", "."), 0.0)
        print(f"{relative:42} {wall:7.1f}s {nbval:7.1f}s")
    path, _, seconds, where = max(runs, key=lambda run: run[2])
    print(f"\nslowest cell: {path.relative_to(ROOT)} {where}: {seconds:.2f} s")
    print(f"test suite (pytest, all tests): {suite_wall:.1f} s wall")
    print(f"pytest said: {summary}")
    for label, wall in [
        ("the instructor notebooks nbval re-executes", instructor_wall),
        ("all notebooks, student and instructor", all_wall),
    ]:
        print(
            f"plain execution of {label}, 2 at a time: {wall:.1f} s wall; "
            f"suite / plain = {suite_wall / wall:.2f}"
        )


if __name__ == "__main__":
    main()
