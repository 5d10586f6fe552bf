"""Graded assignments, built with otter-grader from the chapters.

    python -m tools.assignments build [chapter ...]  # autograder bundles
    python -m tools.assignments grade CHAPTER SUBMISSION.ipynb ...  # CSV

`otter assign` makes `assignments/<chapter>.ipynb` and the bundle in
`_assignments/<chapter>/dist/`; added to otter: a class graded into one
table, with a time limit per notebook.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_raw_cell

from tools.export import graded
from tools.export import notebook as convert
from tools.source import links, qmd
from tools.source.book import ONE_THREAD, ROOT, pinned

RAW = "https://raw.githubusercontent.com"  # committed files, as served
ASSIGNMENTS = ROOT / "assignments"
BUNDLES = ROOT / "_assignments"
# otter assign's settings, but for otter's defaults (JSON is YAML).
CONFIG = {
    "init_cell": False,
    "export_cell": False,
    "run_tests": False,
    "show_question_points": True,
    "tests": {"ok_format": False},
    "generate": True,
}
# After the chapter's title: what makes this notebook an assignment.
ABOUT = (
    "**This is the chapter's graded assignment.** Answer in the `my_...` "
    "cells and each *explain* exercise in the cell below it, run the "
    "notebook from the top and read what each `grader.check(...)` says. "
    "Your instructor grades it with further tests, and the explain answers "
    "by hand. Keep its name, `{name}.ipynb`: its checks read their tests "
    "from it. The first code cell installs `{otter}` where it is missing."
)
# The first code cell. Colab has neither otter-grader nor this file,
# which otter reads the public tests from: they come from the repository.
INIT = """# Initialize Otter
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("otter") is None:  # on Colab, for one
    pip = [sys.executable, "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "{otter}"], check=True)
if "google.colab" in sys.modules:
    import json
    import urllib.request

    url = "{url}"
    with urllib.request.urlopen(url) as response:
        tests = json.load(response)["metadata"]["otter"]["tests"]
    os.makedirs("tests", exist_ok=True)
    for question, source in tests.items():
        with open(f"tests/{{question}}.py", "w", encoding="utf-8") as file:
            file.write(source)
import otter  # noqa: E402 (installed above where it was missing)

notebook = "{name}.ipynb"  # absent on Colab and from a renamed copy
grader = otter.Notebook(notebook if os.path.exists(notebook) else None)"""


def requirements(parsed: qmd.Qmd) -> list[str]:
    imported = "\n".join(c.source for c in parsed.chunks() if not c.solution)
    modules = "|".join(re.findall(r"^(?:from|import) (\w+)", imported, re.M))
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    # Each line that pins one of them: its name, then a version or marker.
    return re.findall(rf"^(?:{modules})(?=[=<>;\s\[]).*", lines, re.M)


def master_notebook(name: str) -> nbformat.NotebookNode:
    parsed = qmd.parse(graded.chapter_path(name))
    by_starter = {f"starter-{q.name}": q for q in graded.questions(parsed)}
    notebook = convert.to_notebook(parsed, "student")
    config = {"name": name, **CONFIG, "requirements": requirements(parsed)}
    cells = [new_raw_cell(f"# ASSIGNMENT CONFIG\n{json.dumps(config)}")]
    for cell in notebook.cells:
        question = by_starter.get(graded.cell_label(cell))
        if question is None:
            cells.append(cell)
            if len(cells) == 2:  # the title
                otter = f"otter-grader=={pinned('otter-grader', ROOT)}"
                about = ABOUT.format(otter=otter, name=name)
                cells.append(new_markdown_cell(about))
                github = links.repo_url(ROOT).split("github.com/")[1]
                url = f"{RAW}/{github}/main/assignments/{name}.ipynb"
                start = INIT.format(otter=otter, url=url, name=name)
                cells.append(new_code_cell(start))
            explain = graded.EXPLAIN.match(cell.source)
            if cell.cell_type == "markdown" and explain:
                answer = graded.ANSWER.format(number=explain.group(1))
                cells.append(new_markdown_cell(answer))
            continue
        header = f"name: {question.name}\npoints: {question.points}"
        cells.append(new_raw_cell(f"# BEGIN QUESTION\n{header}"))
        cells.append(new_raw_cell("# BEGIN SOLUTION"))
        cells.append(new_code_cell(graded.solution_cell(question)))
        cells.append(new_raw_cell("# END SOLUTION"))
        cells.append(new_raw_cell("# BEGIN TESTS"))
        for test in graded.test_cells(question):
            cells.append(new_code_cell(test))
        cells.append(new_raw_cell("# END TESTS"))
        cells.append(new_raw_cell("# END QUESTION"))
    notebook.cells = cells
    return notebook


def run_otter_assign(name: str, destination: Path) -> Path:
    from otter.assign import main as otter_assign

    master = destination / f"{name}.ipynb"
    destination.mkdir(parents=True, exist_ok=True)
    nbformat.write(master_notebook(name), master)
    result = destination / "dist"
    with contextlib.redirect_stdout(io.StringIO()):
        otter_assign(str(master), str(result), no_pdfs=True)
    return result


def write_student_assignment(name: str) -> Path:
    with tempfile.TemporaryDirectory() as scratch:
        result = run_otter_assign(name, Path(scratch))
        notebook = nbformat.read(result / "student" / f"{name}.ipynb", 4)
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{number:03d}"
    path = ASSIGNMENTS / f"{name}.ipynb"
    path.parent.mkdir(exist_ok=True)
    path.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
    return path


def autograder_zip(result: Path) -> Path | None:
    # The only one: build empties dist/ before otter assign writes it.
    return next((result / "autograder").glob("*.zip"), None)


def build(name: str) -> Path:
    # Earlier grades, beside dist/, stay.
    graded_only(name, "build")
    target = BUNDLES / name
    shutil.rmtree(target / "dist", ignore_errors=True)
    return autograder_zip(run_otter_assign(name, target))


GRADING_TIMEOUT = 600  # seconds; a chapter grades in under a minute here
# Otter's local grading of one submission (`otter run`: its results.json,
# every test's message), then the scores and each cell that raised.
GRADER = """import json, sys
from otter.run import main
archive, submission, folder = sys.argv[1:]
graded = main(submission, autograder=archive, output_dir=folder, no_logo=True)
raised = [f"{o.ename}: {o.evalue}".split(chr(10))[0]
          for c in graded.notebook.cells for o in c.get("outputs", [])
          if o.get("output_type") == "error"]
scores = {q: r.score for q, r in graded.results.items()}
print(json.dumps(dict(scores=scores, raised=raised)))
"""


def otter_run(
    archive: Path, submission: Path, output: Path, timeout: float
) -> tuple[dict, str]:
    """({question: score}, the cells that raised or ""), or ({}, why
    GRADER printed no scores). A timeout kills GRADER; the notebook's
    kernel then stops itself (ipykernel ends a kernel whose parent went)."""
    command = [sys.executable, "-c", GRADER, str(archive), str(submission)]
    try:
        printed = subprocess.run(
            [*command, str(output)],
            capture_output=True,
            env={**os.environ, **ONE_THREAD},
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {}, f"still running after {timeout:g} s"
    scores = printed.stdout.strip().splitlines()[-1:]
    if printed.returncode != 0 or not scores:
        said = printed.stderr.strip().splitlines() or ["otter printed nothing"]
        return {}, said[-1].strip()
    found = json.loads(scores[0])
    raised = "; ".join(found["raised"])
    return found["scores"], raised and f"cells raised: {raised}"


def graded_only(name: str, command: str) -> None:
    chapters = graded.graded_chapters()
    if name not in chapters:
        raise SystemExit(
            f"{command}: {name!r} has no assignment (only a chapter with "
            f"graded questions has one); graded: {', '.join(chapters)}"
        )


def learners(submissions: list[Path]) -> list[str]:
    """Each file's name, or folder and name where names repeat."""
    names = [s.stem for s in submissions]
    if len(set(names)) < len(names):
        names = [f"{s.parent.name}-{s.stem}" for s in submissions]
    return [
        name if names[:k].count(name) == 0 else f"{name}-{k + 1}"
        for k, name in enumerate(names)
    ]


def grade(
    name: str,
    submissions: list[Path],
    jobs: int = 2,
    timeout: float = GRADING_TIMEOUT,
) -> Path:
    """Grade every submission; a new `grades-<stamp>.csv`, one row per
    learner, and `results/<stamp>/<learner>/` (results.json, answers.md).
    A missing or ungradable submission is "not graded", said on stderr."""
    if not submissions:
        raise SystemExit("grade: name at least one submitted notebook")
    graded_only(name, "grade")
    archive = autograder_zip(BUNDLES / name / "dist")
    if archive is None:
        raise SystemExit(
            f"grade: no autograder bundle for {name}; run "
            f"`.venv/bin/python -m tools.assignments build {name}` first"
        )
    parsed = qmd.parse(graded.chapter_path(name))
    names = [question.name for question in graded.questions(parsed)]
    template = ASSIGNMENTS / f"{name}.ipynb"
    by_hand = graded.hand_answers(template, Path(tempfile.mkdtemp()))
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    run, number = BUNDLES / name / "results" / stamp, 1
    while run.exists():  # a second run in the same second
        number += 1
        run = run.with_name(f"{stamp}-{number}")
    run.mkdir(parents=True)
    folders = [run / learner for learner in learners(submissions)]

    def grade_one(submission: Path, folder: Path) -> tuple[dict, str]:
        if not submission.is_file():
            return {}, "no such file"
        with contextlib.suppress(ValueError):  # otter says what is wrong
            graded.hand_answers(submission, folder)
        return otter_run(archive, submission, folder, timeout)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(grade_one, submissions, folders))
    table = BUNDLES / name / f"grades-{run.name}.csv"
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        hand = [f"Exercise {number} (by hand)" for number in by_hand]
        writer.writerow(["learner", *names, "total", *hand, "notes"])
        for folder, (score, note) in zip(folders, results, strict=True):
            if not score:
                print(f"grade: {folder.name}: {note}", file=sys.stderr)
                row = ["not graded"] * (len(names) + 1)
            else:
                row = [score.get(q, 0) for q in names]
                row.append(sum(row))
            writer.writerow([folder.name, *row, *[""] * len(hand), note])
    missed = sum(not score for score, _ in results)
    print(
        f"{name}: {len(results) - missed} graded, {missed} not graded; "
        f"{os.path.relpath(table, ROOT)}"
    )
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build", "grade"])
    parser.add_argument("chapters", nargs="*", help="grade: CHAPTER FILE...")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=GRADING_TIMEOUT)
    args = parser.parse_args(argv)
    if args.command == "grade":
        if not args.chapters:
            parser.error("grade needs a chapter and the submitted notebooks")
        name, *submissions = args.chapters
        grade(name, [Path(s) for s in submissions], args.jobs, args.timeout)
        return
    for name in args.chapters or graded.graded_chapters():
        print(f"{name}: {build(name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
