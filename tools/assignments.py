"""Graded assignments, built with otter-grader from the chapters.

    python -m tools.assignments build [chapter ...]  # autograder bundles
    python -m tools.assignments grade CHAPTER SUBMISSION.ipynb ...  # CSV

Each chapter with graded exercises becomes an otter "master" notebook, made
from the same cells as the instructor notebook (`convert.edition_cells`), and
`otter assign` turns it into

- `assignments/<chapter>.ipynb`: the student assignment, written by
  `tools/regenerate.py` and committed. It is the student notebook with the
  public tests of each graded question (`grader.check("<question>")`); it
  holds no solution and no hidden test.
- `_assignments/<chapter>/autograder/`: the instructor's bundle
  (`build`), with the solutions notebook and every test, hidden ones
  included, and `<chapter>-autograder_<date>.zip` for `otter run`.

The graded exercises themselves are read by tools/export/graded.py.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import nbformat

from tools.export import notebook as convert
from tools.export.graded import (
    CHECK_CALL,
    Question,
    cell_label,
    chapter_path,
    graded_chapters,
    questions,
)
from tools.source import qmd
from tools.source.book import ONE_THREAD, pinned

ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENTS = ROOT / "assignments"
BUNDLES = ROOT / "_assignments"
CONFIG = """# ASSIGNMENT CONFIG
name: {name}
init_cell: true
check_all_cell: false
export_cell: false
run_tests: false
solutions_pdf: false
template_pdf: false
show_question_points: true
tests:
  files: false
  ok_format: false
generate: true
"""
# After the chapter's title: what makes this notebook an assignment.
ABOUT = (
    "**This is the chapter's graded assignment.** "
    "Each graded exercise has its `my_...` cell, as in the chapter, and "
    "then a `grader.check(...)` cell that runs its public tests. "
    "Write your answers, run the notebook from the top and read what each "
    "check says; your instructor grades the notebook you hand in with "
    "further tests. The links above open the chapter's own notebook: hand "
    "in this one, as your instructor asks, and keep its file name, "
    "`{name}.ipynb`: its checks read their tests from it. "
    "Besides the chapter's packages "
    "it needs `otter-grader` (`pip install {otter}`, the version it is "
    "graded with)."
)


def otter_requirement() -> str:
    """otter-grader as requirements.txt pins it (`otter-grader==X.Y.Z`)."""
    version = pinned("otter-grader", ROOT)
    return f"otter-grader=={version}" if version else "otter-grader"


PUBLIC_TEST = '''""" # BEGIN TEST CONFIG
points: 1
""" # END TEST CONFIG
def test_{slug}_public(env):
    """The chapter's self-check: its one sentence is the feedback."""
    import contextlib
    import io

    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        passed = env["{check}"](env.get("{answer}"))
    assert passed is True, said.getvalue().strip()
'''


def solution_cell(question: Question) -> str:
    """The master notebook's answer cell: the starter, then the solution."""
    starter = question.starter.split("\n")
    body = "\n".join(starter[:-1]).rstrip("\n")
    solution = question.solution.split("\n")
    reference = CHECK_CALL.match(solution[-1]).group(2)
    parts = [*question.helpers, "\n".join(solution[:-1]).rstrip("\n")]
    hidden = "\n\n\n".join(parts)
    return (
        f"{body}\n\n\n# BEGIN SOLUTION NO PROMPT\n{hidden}\n\n\n"
        f"{question.answer} = {reference}\n# END SOLUTION\n{starter[-1]}"
    )


def master_notebook(name: str) -> nbformat.NotebookNode:
    """The otter master notebook of a chapter (solutions and all tests)."""
    parsed = qmd.parse(ROOT / "chapters" / f"{name}.qmd")
    by_starter = {f"starter-{q.name}": q for q in questions(parsed)}
    notebook = convert.to_notebook(parsed, "student")
    cells = [raw(CONFIG.format(name=name))]
    for cell in notebook.cells:
        if cell.cell_type == "raw":
            continue  # the front matter is no part of an assignment
        question = by_starter.get(cell_label(cell))
        if question is None:
            cells.append(cell)
            if len(cells) == 2:  # the title
                about = ABOUT.format(otter=otter_requirement(), name=name)
                cells.append(nbformat.v4.new_markdown_cell(about))
            continue
        cells.append(
            raw(
                f"# BEGIN QUESTION\nname: {question.name}\n"
                f"points: {question.points}"
            )
        )
        cells.append(raw("# BEGIN SOLUTION"))
        cells.append(nbformat.v4.new_code_cell(solution_cell(question)))
        cells.append(raw("# END SOLUTION"))
        cells.append(raw("# BEGIN TESTS"))
        slug = question.name.replace("-", "_")
        public = PUBLIC_TEST.format(
            slug=slug, check=question.check, answer=question.answer
        )
        cells.append(nbformat.v4.new_code_cell(public))
        share = question.hidden_points / len(question.hidden)
        for test in question.hidden:
            config = (
                f'""" # BEGIN TEST CONFIG\nhidden: true\npoints: {share:g}'
            )
            source = f'{config}\n""" # END TEST CONFIG\n{test}'
            cells.append(nbformat.v4.new_code_cell(source))
        cells.append(raw("# END TESTS"))
        cells.append(raw("# END QUESTION"))
    notebook.cells = cells
    return notebook


def raw(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_raw_cell(source)


def run_otter_assign(name: str, destination: Path) -> Path:
    """`otter assign` on the chapter's master notebook; its output dir."""
    from otter.assign import main as otter_assign

    master = destination / f"{name}.ipynb"
    destination.mkdir(parents=True, exist_ok=True)
    nbformat.write(master_notebook(name), master)
    result = destination / "dist"
    with contextlib.redirect_stdout(io.StringIO()):
        otter_assign(str(master), str(result), no_pdfs=True)
    return result


def student_assignment(name: str) -> nbformat.NotebookNode:
    """The student assignment notebook, as `otter assign` writes it."""
    with tempfile.TemporaryDirectory() as scratch:
        result = run_otter_assign(name, Path(scratch))
        notebook = nbformat.read(result / "student" / f"{name}.ipynb", 4)
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{number:03d}"
    return notebook


def bundle(name: str, destination: Path):
    """`otter assign` into destination: (student notebook, test files).

    The test files are the autograder's, hidden tests included, as
    {question name: source of tests/<question>.py}.
    """
    result = run_otter_assign(name, destination)
    student = nbformat.read(result / "student" / f"{name}.ipynb", 4)
    return student, bundled_tests(result)


def autograder_zip(result: Path) -> Path | None:
    """The autograder zip in an `otter assign` output folder (the latest,
    by the date in its name), or None."""
    archives = sorted((result / "autograder").glob("*.zip"))
    return archives[-1] if archives else None


def bundled_tests(result: Path) -> dict[str, str]:
    """{question: source of tests/<question>.py} in an autograder zip."""
    with zipfile.ZipFile(autograder_zip(result)) as bundled:
        return {
            Path(item).stem: bundled.read(item).decode("utf-8")
            for item in bundled.namelist()
            if item.startswith("tests/") and item.endswith(".py")
        }


def write_student_assignment(name: str) -> Path:
    path = ASSIGNMENTS / f"{name}.ipynb"
    path.parent.mkdir(exist_ok=True)
    text = nbformat.writes(student_assignment(name)) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def build(name: str) -> Path:
    """The instructor's bundle in _assignments/<name>/; the zip's path.

    Only what `otter assign` writes is replaced: the grades and results of
    earlier `grade` runs in that folder stay.
    """
    target = BUNDLES / name
    shutil.rmtree(target / "dist", ignore_errors=True)
    return autograder_zip(run_otter_assign(name, target))


# A submission still running after this long is stopped and not graded
# (a whole chapter runs in well under a minute here).
GRADING_TIMEOUT = 600  # seconds


def run_stopping_after(command: list[str], env: dict, seconds: float):
    """What command printed, or None if it ran longer than seconds.

    It runs in a session of its own, so that on a timeout the processes it
    started (otter's kernel) are stopped with it.
    """
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
        start_new_session=True,
    )
    try:
        return process.communicate(timeout=seconds)[0]
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None


def otter_run(
    archive: Path, submission: Path, output: Path
) -> tuple[dict, str]:
    """`otter run` (local, no Docker) on one notebook.

    Returns ({question: score}, "") or, when otter wrote no results,
    ({}, why): the last line it printed, or that it ran out of time.
    """
    # A run that writes no results must not find an earlier run's.
    shutil.rmtree(output, ignore_errors=True)
    output.mkdir(parents=True)
    command = [sys.executable, "-m", "otter", "run", "-a", str(archive)]
    command += [str(submission), "-o", str(output)]
    env = {**os.environ, **ONE_THREAD}
    printed = run_stopping_after(command, env, GRADING_TIMEOUT)
    if printed is None:
        return {}, f"still running after {GRADING_TIMEOUT} s"
    results = output / "results.json"
    if not results.exists():
        lines = [line for line in printed.splitlines() if line.strip()]
        return {}, lines[-1].strip() if lines else "otter wrote no results"
    tests = json.loads(results.read_text(encoding="utf-8"))["tests"]
    return {t["name"]: t["score"] for t in tests if "max_score" in t}, ""


def bundle_archive(name: str) -> Path:
    """The autograder zip `build` made for a chapter, or a clear exit."""
    if not chapter_path(name).is_file():
        chapters = ", ".join(graded_chapters())
        raise SystemExit(f"grade: no chapter {name!r}; graded: {chapters}")
    archive = autograder_zip(BUNDLES / name / "dist")
    if archive is None:
        raise SystemExit(
            f"grade: no autograder bundle for {name}; run "
            f"`.venv/bin/python -m tools.assignments build {name}` first"
        )
    return archive


def grade(name: str, submissions: list[Path], jobs: int = 2) -> Path:
    """Grade every submission with `otter run`; write a table of grades.

    Each run writes a new `grades-<date>-<time>.csv`, so no batch
    overwrites an earlier one; a row names its submission as given, and
    each submission's results (hidden tests' messages included) go to a
    folder of their own, even when submissions share a file name. A
    submission otter could not grade is listed on stderr with the reason,
    and its row says "not graded", not a score of 0.
    """
    if not submissions:
        raise SystemExit("grade: name at least one submitted notebook")
    missing = [str(s) for s in submissions if not s.is_file()]
    if missing:
        raise SystemExit(f"grade: no such submission: {', '.join(missing)}")
    archive = bundle_archive(name)
    names = [q.name for q in questions(qmd.parse(chapter_path(name)))]
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    run = BUNDLES / name / "results" / stamp
    outputs = [
        run / f"{number:03d}-{s.stem}"
        for number, s in enumerate(submissions, start=1)
    ]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        graded = list(
            pool.map(
                otter_run, [archive] * len(submissions), submissions, outputs
            )
        )
    table = BUNDLES / name / f"grades-{stamp}.csv"
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", *names, "total"])
        for submission, (score, why) in zip(submissions, graded, strict=True):
            if not score:
                print(
                    f"grade: {submission} was not graded: {why}",
                    file=sys.stderr,
                )
                writer.writerow(
                    [str(submission), *["not graded"] * (len(names) + 1)]
                )
                continue
            row = [score.get(q, 0) for q in names]
            writer.writerow([str(submission), *row, sum(row)])
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build", "grade"])
    parser.add_argument(
        "chapters",
        nargs="*",
        help="chapters; for grade, "
        "one chapter and then the submitted notebooks",
    )
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.command == "grade":
        if not args.chapters:
            parser.error("grade needs a chapter and the submitted notebooks")
        name, *submissions = args.chapters
        table = grade(name, [Path(s) for s in submissions], args.jobs)
        with table.open(encoding="utf-8") as handle:
            rows = list(csv.reader(handle))[1:]
        missed = sum(row[-1] == "not graded" for row in rows)
        print(
            f"{name}: {len(rows) - missed} graded, {missed} not graded; "
            f"{table.relative_to(ROOT)}"
        )
        return
    for name in args.chapters or graded_chapters():
        print(f"{name}: {build(name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
