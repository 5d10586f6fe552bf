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
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import links  # noqa: E402
import qmd  # noqa: E402
from check_env import pinned  # noqa: E402
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
init_cell: false
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
requirements: {requirements}
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
    "graded with); the first code cell installs it where it is missing, "
    "as on Colab. "
    "Answer each *explain* exercise in the cell below it: your instructor "
    "grades those by hand."
)
# The assignment's first code cell. Colab has otter-grader neither
# installed nor a copy of this notebook's file, which otter reads the
# public tests from: there it installs otter and writes those tests to
# tests/ from the committed assignment.
INIT = """# Initialize Otter
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("otter") is None:  # on Colab, for one
    pip = [sys.executable, "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "{otter}"], check=True)
COLAB = "google.colab" in sys.modules
if COLAB:
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
EXPLAIN = re.compile(r"^\*\*Exercise ([\d.]+)\*\* .* · \*Explain · ")
ANSWER = "**Your answer to Exercise {number}** (graded by hand):"


def requirements(name: str) -> list[str]:
    """The lines of requirements.txt that pin what the chapter imports."""
    code = qmd.to_notebook(qmd.parse(chapter_path(name)), "student").cells
    imported = "\n".join(c.source for c in code if c.cell_type == "code")
    modules = set(re.findall(r"^(?:from|import) (\w+)", imported, re.M))
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    return [
        line
        for line in lines.splitlines()
        if re.split(r"[=<>;\s\[]", line, maxsplit=1)[0] in modules
    ]


def otter_requirement() -> str:
    """otter-grader as requirements.txt pins it (`otter-grader==X.Y.Z`)."""
    version = pinned(ROOT / "requirements.txt", "otter-grader")
    return f"otter-grader=={version}" if version else "otter-grader"


# Every test starts so: it runs the chapter's own code for the check
# (Question.check_code), never a check_... of the notebook, which a learner
# can redefine, and the public check: a hidden test gives no point to an
# answer the public one rejects.
PUBLIC_CHECK = """    import contextlib
    import io

    import torch

    chapter, said = {{"__name__": "chapter"}}, io.StringIO()
    answer = env.get("{answer}")
    with torch.random.fork_rng(devices=[]):
        with contextlib.redirect_stdout(io.StringIO()):
            exec({code!r}, chapter)
        with contextlib.redirect_stdout(said):
            passed = "{answer}" in env and chapter["{check}"](answer)
    assert "{answer}" in env, (
        "The notebook defines no {answer}; keep that name for your answer."
    )
    assert passed is True, said.getvalue().strip()
"""
PUBLIC_TEST = '''""" # BEGIN TEST CONFIG
points: 1
""" # END TEST CONFIG
def test_{slug}_public(env):
    """The chapter's self-check, run from the chapter's own code."""
{check}'''
HIDDEN_TEST = '''""" # BEGIN TEST CONFIG
hidden: true
points: {points:g}
""" # END TEST CONFIG
def {function}(env):
    """The public check, then the chapter's hidden test."""
{check}
{test}

    {function}({{**env, **chapter, "{answer}": answer}})
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
    listed = json.dumps(requirements(name))
    cells = [raw(CONFIG.format(name=name, requirements=listed))]
    for cell in notebook.cells:
        if cell.cell_type == "raw":
            continue  # the front matter is no part of an assignment
        question = by_starter.get(cell_label(cell))
        if question is None:
            cells.append(cell)
            if len(cells) == 2:  # the title
                otter = otter_requirement()
                about = ABOUT.format(otter=otter, name=name)
                cells.append(nbformat.v4.new_markdown_cell(about))
                url = raw_url(f"assignments/{name}.ipynb")
                start = INIT.format(otter=otter, url=url, name=name)
                cells.append(nbformat.v4.new_code_cell(start))
            explain = EXPLAIN.match(cell.source)
            if cell.cell_type == "markdown" and explain:
                answer = ANSWER.format(number=explain.group(1))
                cells.append(nbformat.v4.new_markdown_cell(answer))
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
        check = PUBLIC_CHECK.format(
            answer=question.answer,
            code=question.check_code,
            check=question.check,
        )
        public = PUBLIC_TEST.format(slug=slug, check=check)
        cells.append(nbformat.v4.new_code_cell(public))
        for test in question.hidden:
            hidden = HIDDEN_TEST.format(
                points=question.hidden_points / len(question.hidden),
                function=re.match(r"def (\w+)", test).group(1),
                check=check,
                test=textwrap.indent(test, "    "),
                answer=question.answer,
            )
            cells.append(nbformat.v4.new_code_cell(hidden))
        cells.append(raw("# END TESTS"))
        cells.append(raw("# END QUESTION"))
    notebook.cells = cells
    return notebook


def raw(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_raw_cell(source)


def raw_url(path: str) -> str:
    """Where GitHub serves a committed file of the book's repository."""
    github = links.repo_url(ROOT).removeprefix("https://github.com/")
    return f"https://raw.githubusercontent.com/{github}/main/{path}"


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
    graded_only(name, "build")
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


# Grades one submission with otter's local grading (what `otter run`
# does), and also records every cell of the submission that raised.
GRADER = """import json, sys
from otter.api import grade_submission

archive, submission, output = sys.argv[1:]
results = grade_submission(submission, archive, quiet=True)
raised = [
    f"{out.ename}: {out.evalue}".split("\\n")[0]
    for cell in results.notebook.cells
    for out in cell.get("outputs", [])
    if out.get("output_type") == "error"
]
messages = {
    question: [case.message for case in result.test_case_results]
    for question, result in results.results.items()
}
scores = {question: results.get_score(question) for question in messages}
with open(output, "w", encoding="utf-8") as file:
    json.dump({"scores": scores, "raised": raised, "messages": messages},
              file, indent=1)
"""


def otter_run(
    archive: Path, submission: Path, output: Path, timeout: float
) -> tuple[dict, str]:
    """Otter's local grading (no Docker) of one notebook, in a process
    stopped after timeout seconds; its results go to output/results.json.

    Returns ({question: score}, the cells that raised, or "") or, when
    otter wrote no results, ({}, why): the last line it printed, or that
    it ran out of time.
    """
    results = output / "results.json"
    command = [sys.executable, "-c", GRADER, str(archive), str(submission)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    printed = run_stopping_after([*command, str(results)], env, timeout)
    if printed is None:
        return {}, f"still running after {timeout:g} s"
    if not results.exists():
        lines = [line for line in printed.splitlines() if line.strip()]
        return {}, lines[-1].strip() if lines else "otter wrote no results"
    found = json.loads(results.read_text(encoding="utf-8"))
    raised = "; ".join(found["raised"])
    return found["scores"], raised and f"cells raised: {raised}"


def bundle_archive(name: str) -> Path:
    """The autograder zip `build` made for a chapter, or a clear exit."""
    graded_only(name, "grade")
    archive = autograder_zip(BUNDLES / name / "dist")
    if archive is None:
        raise SystemExit(
            f"grade: no autograder bundle for {name}; run "
            f"`.venv/bin/python tools/assignments.py build {name}` first"
        )
    return archive


def graded_only(name: str, command: str) -> None:
    """Exit with a sentence unless the chapter has graded questions."""
    chapters = ", ".join(graded_chapters())
    if not chapter_path(name).is_file():
        raise SystemExit(f"{command}: no chapter {name!r}; graded: {chapters}")
    if name not in graded_chapters():
        raise SystemExit(
            f"{command}: {name} has no graded questions, so no assignment; "
            f"graded: {chapters}"
        )


def learners(submissions: list[Path]) -> list[str]:
    """Each submission's learner: its file name, or, where file names
    repeat (one folder per learner), its folder and file name."""
    names = [s.stem for s in submissions]
    if len(set(names)) < len(names):
        names = [f"{s.parent.name}-{s.stem}" for s in submissions]
    return [
        name if names[:k].count(name) == 0 else f"{name}-{k + 1}"
        for k, name in enumerate(names)
    ]


def hand_answers(notebook: Path, folder: Path) -> list[str]:
    """The explain answers of a submission, copied to folder/answers.md;
    the exercise number of each answer cell of the assignment."""
    cells = nbformat.read(notebook, 4).cells
    marked = [c.source for c in cells if c.source.startswith(ANSWER[:22])]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answers.md").write_text("\n\n".join(marked), "utf-8")
    return [re.match(r"\S+ \S+ \S+ \S+ ([\d.]+)", m)[1] for m in marked]


def grade(
    name: str,
    submissions: list[Path],
    jobs: int = 2,
    timeout: float = GRADING_TIMEOUT,
) -> Path:
    """Grade every submission with otter; write a table of grades.

    Each run writes a new `grades-<date>-<time>.csv` and `results/<date>-
    <time>/` (a second run in the same second gets `-2`), one row and one
    folder per learner, named by the submission's file name (see
    learners); the folder holds otter's messages, hidden tests' included,
    and the learner's explain answers. A submission that is missing or
    that otter could not grade is reported on stderr and its row says
    "not graded", not a score of 0; cells that raised are named in the
    row's last column.
    """
    if not submissions:
        raise SystemExit("grade: name at least one submitted notebook")
    archive = bundle_archive(name)
    names = [q.name for q in questions(qmd.parse(chapter_path(name)))]
    template = ASSIGNMENTS / f"{name}.ipynb"
    by_hand = hand_answers(template, Path(tempfile.mkdtemp()))
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for number in range(1, 1000):
        run = BUNDLES / name / "results" / stamp
        run = run.with_name(stamp if number == 1 else f"{stamp}-{number}")
        with contextlib.suppress(FileExistsError):
            run.mkdir(parents=True)
            break
    folders = [run / learner for learner in learners(submissions)]

    def graded(submission: Path, folder: Path) -> tuple[dict, str]:
        if not submission.is_file():
            return {}, "no such file"
        with contextlib.suppress(ValueError):  # otter says what is wrong
            hand_answers(submission, folder)
        return otter_run(archive, submission, folder, timeout)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(graded, submissions, folders))
    table = BUNDLES / name / f"grades-{run.name}.csv"
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        hand = [f"Exercise {number} (by hand)" for number in by_hand]
        writer.writerow(["learner", *names, "total", *hand, "notes"])
        for folder, (score, note) in zip(folders, results, strict=True):
            if not score:
                print(
                    f"grade: {folder.name} not graded: {note}", file=sys.stderr
                )
                row = ["not graded"] * (len(names) + 1)
            else:
                row = [score.get(q, 0) for q in names]
                row.append(sum(row))
            writer.writerow([folder.name, *row, *[""] * len(hand), note])
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
    parser.add_argument(
        "--timeout",
        type=float,
        default=GRADING_TIMEOUT,
        help="seconds a submission may run before it is stopped, ungraded",
    )
    args = parser.parse_args(argv)
    if args.command == "grade":
        if not args.chapters:
            parser.error("grade needs a chapter and the submitted notebooks")
        name, *submissions = args.chapters
        paths = [Path(s) for s in submissions]
        table = grade(name, paths, args.jobs, args.timeout)
        with table.open(encoding="utf-8") as handle:
            rows = list(csv.reader(handle))[1:]
        missed = sum(row[1] == "not graded" for row in rows)
        print(
            f"{name}: {len(rows) - missed} graded, {missed} not graded; "
            f"{table.relative_to(ROOT)}"
        )
        return
    for name in args.chapters or graded_chapters():
        print(f"{name}: {build(name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
