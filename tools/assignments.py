"""Graded assignments, built with otter-grader from the chapters.

    python tools/assignments.py build [chapter ...]  # autograder bundles
    python tools/assignments.py grade CHAPTER SUBMISSION.ipynb ...  # CSV

Each chapter with graded exercises becomes an otter "master" notebook, made
from the same cells as the instructor notebook (`qmd.edition_cells`), and
`otter assign` turns it into

- `assignments/<chapter>.ipynb`: the student assignment, written by
  `tools/regenerate.py` and committed. It is the student notebook with the
  public tests of each graded question (`grader.check("<question>")`); it
  holds no solution and no hidden test.
- `_assignments/<chapter>/autograder/`: the instructor's bundle
  (`build`), with the solutions notebook and every test, hidden ones
  included, and `<chapter>-autograder_<date>.zip` for `otter run`.

The graded exercises themselves are read by tools/graded_questions.py.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import qmd  # noqa: E402
from graded_questions import (  # noqa: E402
    CHECK_CALL,
    Question,
    cell_label,
    chapter_path,
    graded_chapters,
    questions,
)

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
    "in this one, as your instructor asks. Besides the chapter's packages "
    "it needs `otter-grader` (`pip install {otter}`, the version it is "
    "graded with)."
)


def otter_requirement() -> str:
    """otter-grader as requirements.txt pins it (`otter-grader==X.Y.Z`)."""
    for line in (ROOT / "requirements.txt").read_text("utf-8").splitlines():
        if line.startswith("otter-grader=="):
            return line.split("#")[0].strip()
    return "otter-grader"


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
    notebook = qmd.to_notebook(parsed, "student")
    cells = [raw(CONFIG.format(name=name))]
    for cell in notebook.cells:
        if cell.cell_type == "raw":
            continue  # the front matter is no part of an assignment
        question = by_starter.get(cell_label(cell))
        if question is None:
            cells.append(cell)
            if len(cells) == 2:  # the title
                about = ABOUT.format(otter=otter_requirement())
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


def bundled_tests(result: Path) -> dict[str, str]:
    """{question: source of tests/<question>.py} in an autograder zip."""
    archive = next((result / "autograder").glob("*.zip"))
    with zipfile.ZipFile(archive) as bundled:
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
    """The instructor's bundle in _assignments/<name>/; the zip's path."""
    target = BUNDLES / name
    shutil.rmtree(target, ignore_errors=True)
    result = run_otter_assign(name, target)
    return next((result / "autograder").glob("*.zip"))


def otter_run(archive: Path, submission: Path, output: Path) -> dict:
    """`otter run` (local, no Docker) on one notebook: {question: score}."""
    # A run that writes no results must not find an earlier run's.
    shutil.rmtree(output, ignore_errors=True)
    output.mkdir(parents=True)
    command = [sys.executable, "-m", "otter", "run", "-a", str(archive)]
    command += [str(submission), "-o", str(output)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    subprocess.run(command, capture_output=True, env=env, check=False)
    results = output / "results.json"
    if not results.exists():
        return {}
    tests = json.loads(results.read_text(encoding="utf-8"))["tests"]
    return {t["name"]: t["score"] for t in tests if "max_score" in t}


def grade(name: str, submissions: list[Path], jobs: int = 2) -> Path:
    """Grade every submission with `otter run`; write grades.csv.

    A submission otter could not grade (no results) is listed on stderr
    and its row says "not graded", not a score of 0.
    """
    missing = [str(s) for s in submissions if not s.is_file()]
    if missing:
        raise SystemExit(f"grade: no such submission: {', '.join(missing)}")
    archive = next((BUNDLES / name / "dist" / "autograder").glob("*.zip"))
    names = [q.name for q in questions(qmd.parse(chapter_path(name)))]
    outputs = [BUNDLES / name / "results" / s.stem for s in submissions]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        scores = list(
            pool.map(
                otter_run, [archive] * len(submissions), submissions, outputs
            )
        )
    table = BUNDLES / name / "grades.csv"
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", *names, "total"])
        for submission, score in zip(submissions, scores, strict=True):
            if not score:
                print(f"grade: {submission} was not graded", file=sys.stderr)
                writer.writerow(
                    [submission.name, *["not graded"] * (len(names) + 1)]
                )
                continue
            row = [score.get(q, 0) for q in names]
            writer.writerow([submission.name, *row, sum(row)])
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
        name, *submissions = args.chapters
        table = grade(name, [Path(s) for s in submissions], args.jobs)
        print(f"{name}: {len(submissions)} graded, {table}")
        return
    for name in args.chapters or graded_chapters():
        print(f"{name}: {build(name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
