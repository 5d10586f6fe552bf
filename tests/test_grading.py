"""Every graded chapter, graded by otter's own local grading.

`otter assign` builds each graded chapter's autograder bundle, and
`otter.api.grade_submission` (what `otter run` calls; no Docker) grades
two notebooks, each in a fresh kernel:

- untouched: the committed assignment, as a learner receives it. Every
  question scores 0, no cell raises, every cell prints what
  notebooks/<chapter>.ipynb recorded (nbval's own comparison).
- solutions: the instructor notebook's cells, each printing what it
  recorded; then each answer planted in tests/plants/<chapter>.py, graded
  in turn (see `plants`); last, each reference solution: full marks.

These runs are the graded chapters' notebook executions: nbval does not
execute those notebooks again (tests/conftest.py).
"""

from __future__ import annotations

import copy
import functools
import json
import re
import tempfile
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple

import nbformat
import pytest
from conftest import ROOT
from nbval import plugin

from tools import assignments
from tools.export import graded as graded_questions

GRADED = graded_questions.graded_chapters()
PLANTS = Path(__file__).resolve().parent / "plants"
UNTOUCHED = [f"untouched-{name}" for name in GRADED]
SOLUTIONS = [f"solutions-{name}" for name in GRADED]
OTTER_CELL = re.compile(r'^(# Initialize Otter\n|grader\.check\("[\w-]+"\)$)')
# How a planted answer fares: the question's bundled tests, run as
# grader.check runs them. A wrong answer meets only its public test: every
# hidden test runs that first (test_hidden_tests_stay_in_the_autograder),
# so it scores 0 too, and the check, the costly part, runs once, not twice.
REPORT = """import json

from otter.test_files import ExceptionTestFile

graded = ExceptionTestFile.from_file("tests/{question}.py")
if {wrong}:
    graded.test_cases = [t for t in graded.test_cases if not t.hidden]
graded.run(globals())
print(json.dumps({{
    "score": graded.score,
    "possible": graded.possible,
    "messages": [result.message for result in graded.test_case_results],
}}))"""


def chapter_of(run: str) -> str:
    return run.split("-", 1)[1]


def questions(name: str) -> list[graded_questions.Question]:
    return graded_questions.questions(
        graded_questions.qmd.parse(graded_questions.chapter_path(name))
    )


class Plant(NamedTuple):
    question: str
    says: list[str]  # each in the public test's sentence; [] for full marks
    never: list[str]  # none of these in it
    code: str
    hidden: bool  # the public test passes, a hidden test says the words


def plants(name: str) -> list[Plant]:
    """The planted answers of tests/plants/<chapter>.py.

    One cell per answer, opened by `# %% <question>: <words>`: a wrong
    answer scores 0, and its public test fails with one sentence, on one
    line, that contains each of the words `a | b` and none of `| not: c`;
    `# %% <question>: hidden: a` passes the public test and fails a hidden
    one with `a`; `# %% <question>: full marks` is a right answer in
    another form.
    """
    text = (PLANTS / f"{name}.py").read_text(encoding="utf-8")
    parts = re.split(r"^# %% (.+)\n", text, flags=re.MULTILINE)[1:]
    found = []
    for header, code in zip(parts[::2], parts[1::2], strict=True):
        question, _, words = header.partition(": ")
        hidden = words.startswith("hidden: ")
        words = words.removeprefix("hidden: ")
        wanted = [] if words == "full marks" else words.split(" | ")
        found.append(
            Plant(
                question,
                [w for w in wanted if not w.startswith("not: ")],
                [w.removeprefix("not: ") for w in wanted if w[:5] == "not: "],
                code.strip("\n"),
                hidden,
            )
        )
    return found


@functools.cache
def bundle(name: str) -> Path:
    """`otter assign` on the chapter: its dist/ folder (student, zip)."""
    scratch = Path(tempfile.mkdtemp(prefix=f"otter-{name}-"))
    return assignments.run_otter_assign(name, scratch)


def code(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source)


def solutions_submission(name: str) -> nbformat.NotebookNode:
    """Otter's first cell, the instructor notebook's cells, each planted
    answer and its report, then each reference solution, which is what
    otter's results record."""
    assignment = nbformat.read(ROOT / "assignments" / f"{name}.ipynb", 4)
    instructor = nbformat.read(
        ROOT / "notebooks" / "instructor" / f"{name}.ipynb", 4
    )
    start = next(c for c in assignment.cells if OTTER_CELL.match(c.source))
    cells = [copy.deepcopy(start), *shared_prefix_trimmed(name, instructor)]
    for plant in plants(name):
        wrong = bool(plant.says) and not plant.hidden
        report = REPORT.format(question=plant.question, wrong=wrong)
        cells += [code(plant.code), code(report)]
    for question in questions(name):
        last = question.solution.split("\n")[-1]
        reference = graded_questions.CHECK_CALL.match(last).group(2)
        cells.append(code(f"{question.answer} = {reference}"))
        cells.append(code(f'grader.check("{question.name}")'))
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number:03d}"
    return nbformat.v4.new_notebook(cells=cells, metadata=assignment.metadata)


# Cells that draw or measure for the text only, before a chapter's first
# solution: the untouched run executes them (shared_prefix_trimmed).
DEMONSTRATIONS = {
    "maths-and-code": (
        "depth-gradients",
        "depth-gradients-final",
        "depth-summary",
        "depth-stream",
        "fig-depth-gradients",
        "ffn-gradients",
        "ffn-gradients-summary",
        "fig-ffn-gradients",
        "solution-gradient-30",
    ),
    "mechanics": (),
    "systems": ("timing",),
    # Training runs, what they print and draw, and the figures.
    "training": (
        "first-start",
        "first-run",
        "first-run-end",
        "predictions",
        "copy-heads",
        "fig-copy-attention",
        *(f"grid-{number:02d}" for number in range(24)),
        "outcome-table",
        "last-steps",
        "fig-training-curves",
        "inside",
        "inside-gradients",
        "inside-scales",
        "inside-seeds",
        "fig-inside",
    ),
}


def shared_prefix_trimmed(name: str, instructor) -> list:
    """The instructor notebook's cells, less the figures, their style cell
    and the DEMONSTRATIONS before its first instructor-only cell: up to
    there both editions are the same cells (check_editions_agree), which
    the untouched run compares. A later cell that used one would raise a
    NameError here, or draw a figure of another size than recorded.
    """
    student = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", 4)
    public = iter(c.source for c in student.cells if c.cell_type == "code")
    first_solution = next(
        number
        for number, cell in enumerate(instructor.cells)
        if cell.cell_type == "code" and cell.source != next(public, None)
    )
    left_out = {"style", *DEMONSTRATIONS[name]}

    def drawn(cell) -> bool:
        label = graded_questions.cell_label(cell)
        return label.startswith("fig-") or label in left_out

    return [
        cell
        for number, cell in enumerate(instructor.cells)
        if number >= first_solution or not drawn(cell)
    ]


@functools.cache
def graded(run: str):
    """(submitted notebook, otter's GradingResults) of one grading run."""
    from otter.api import grade_submission

    kind, name = run.split("-", 1)
    if kind == "untouched":
        submitted = nbformat.read(ROOT / "assignments" / f"{name}.ipynb", 4)
    else:
        submitted = solutions_submission(name)
    folder = bundle(name).parent / kind
    folder.mkdir(exist_ok=True)  # a second test asks again after a failure
    path = folder / f"{name}.ipynb"
    nbformat.write(submitted, path)
    archive = assignments.autograder_zip(bundle(name))
    return submitted, grade_submission(str(path), str(archive), quiet=True)


def executed_cells(run: str) -> list[nbformat.NotebookNode]:
    """The submitted cells as the grading run executed them, in order."""
    submitted, results = graded(run)
    ran = results.notebook.cells
    sources = [cell.source for cell in submitted.cells]
    start = next(
        k
        for k in range(len(ran) - len(sources) + 1)
        if [c.source for c in ran[k : k + len(sources)]] == sources
    )
    return ran[start : start + len(sources)]


# nbval's skip_compare without --nbdime (nbval.plugin.IPyNbFile.__init__):
# figures are PNG, which nbval does not compare; everything textual is.
SKIP_COMPARE = (
    "metadata",
    "traceback",
    "prompt_number",
    "output_type",
    "name",
    "execution_count",
    "application/vnd.jupyter.widget-view+json",
    "image/png",
    "image/jpeg",
)


class NbvalCell:
    """What nbval's own output comparison reads from its cell item."""

    parent = SimpleNamespace(skip_compare=SKIP_COMPARE, sanitize_patterns={})
    colors = plugin.nocolors
    ihook = SimpleNamespace(pytest_assertrepr_compare=lambda **_: [])
    config = None
    compare_outputs = plugin.IPyNbCell.compare_outputs
    format_output_compare = plugin.IPyNbCell.format_output_compare
    sanitize = plugin.IPyNbCell.sanitize


def errors(cell) -> str:
    raised = [o for o in cell.get("outputs", []) if o.output_type == "error"]
    return "; ".join(f"{o.ename}: {o.evalue}" for o in raised)


def difference(recorded, ran) -> str:
    """Why a cell's new outputs differ from its recorded ones, as nbval
    judges them (an `# NBVAL_IGNORE_OUTPUT` cell must only not raise)."""
    if errors(ran):
        return f"raised {errors(ran)}"
    options = dict(plugin.find_metadata_tags(recorded.metadata))
    options.update(plugin.find_comment_markers(recorded.source))
    assert not {"skip", "check_exception"} & set(options), recorded.source
    if not options.get("check", True) or recorded.execution_count is None:
        return ""
    item = NbvalCell()
    same = item.compare_outputs(
        plugin.coalesce_streams(copy.deepcopy(ran.outputs)),
        plugin.coalesce_streams(copy.deepcopy(recorded.outputs)),
    )
    return "" if same else "\n".join(item.comparison_traceback)


def unprinted(recorded_cells, ran_cells) -> list[str]:
    """Each recorded code cell whose new outputs differ, with nbval's diff."""
    problems = []
    for number, (recorded, ran) in enumerate(
        zip(recorded_cells, ran_cells, strict=True)
    ):
        assert without_options(recorded.source) == without_options(ran.source)
        if recorded.cell_type == "code" and (why := difference(recorded, ran)):
            problems.append(f"cell {number}:\n{recorded.source}\n{why}")
    return problems


def without_options(source: str) -> str:
    lines = source.split("\n")
    return "\n".join(x for x in lines if not x.startswith("#|")).strip()


def student_cells_of_assignment(name: str, ran_cells):
    """The student notebook's code cells, each with its executed twin.

    The assignment is the student notebook's cells (a starter without its
    `#|` lines) plus otter's first cell and a `grader.check` after each
    starter; every cell in between must be one of those.
    """
    student = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", 4)
    recorded = [c for c in student.cells if c.cell_type == "code"]
    ran = iter(c for c in ran_cells if c.cell_type == "code")
    pairs = []
    for cell in recorded:
        twin = next(ran)
        while without_options(twin.source) != without_options(cell.source):
            assert OTTER_CELL.match(twin.source), twin.source
            twin = next(ran)
        pairs.append((cell, twin))
    return pairs


@pytest.mark.parametrize("run", UNTOUCHED)
def test_student_assignment_is_what_otter_assign_writes(run):
    name = chapter_of(run)
    committed = nbformat.read(ROOT / "assignments" / f"{name}.ipynb", 4)
    student = nbformat.read(bundle(name) / "student" / f"{name}.ipynb", 4)
    built = [(c.cell_type, c.source) for c in student.cells]
    assert [(c.cell_type, c.source) for c in committed.cells] == built, (
        f"assignments/{name}.ipynb is stale: run "
        f".venv/bin/python -m tools.regenerate {name}"
    )


@pytest.mark.parametrize("run", UNTOUCHED)
def test_hidden_tests_stay_in_the_autograder(run):
    name = chapter_of(run)
    text = (ROOT / "assignments" / f"{name}.ipynb").read_text("utf-8")
    with zipfile.ZipFile(assignments.autograder_zip(bundle(name))) as z:
        bundled = {path: z.read(path).decode() for path in z.namelist()}
    test_files = [path for path in bundled if path.startswith("tests/")]
    assert test_files, "the autograder holds no tests"
    for question in test_files:
        source = bundled[question]
        assert "hidden=True" in source, f"{question} has no hidden test"
        assert "hidden=False" in source, f"{question} has no public test"
        hidden = source.split("hidden=True", 1)[1]
        name_line = next(
            line for line in hidden.split("\n") if line.startswith("def ")
        )
        assert name_line not in text, f"{question}: hidden test leaked"
        # Every test runs the chapter's own check, never the notebook's,
        # and each hidden test runs the public check first.
        tests = source.split("@test_case(")[1:]
        assert all("and chapter['check_" in test for test in tests), question
        assert "env['check_" not in source, question
    environment = bundled["environment.yml"]
    assert "- torch==" in environment and "- matplotlib==" in environment


def every_question_graded(run: str) -> dict:
    """{question: otter's result}, one for each of the chapter's questions."""
    results = graded(run)[1].results
    names = [q.name for q in questions(chapter_of(run))]
    assert sorted(results) == sorted(names), results
    return results


@pytest.mark.parametrize("run", UNTOUCHED + SOLUTIONS)
def test_untouched_scores_zero_and_solved_full_marks(run):
    results = every_question_graded(run)
    for question in questions(chapter_of(run)):
        result = results[question.name]
        assert result.possible == question.points, question.name
        assert result.score == (0 if run in UNTOUCHED else result.possible), (
            f"{question.name}: {[r.message for r in result.test_case_results]}"
        )
    raised = [c.source for c in executed_cells(run) if errors(c)]
    assert not raised, f"cells raised: {raised}"


@pytest.mark.parametrize("run", UNTOUCHED + SOLUTIONS)
def test_every_cell_prints_what_its_notebook_recorded(run):
    name, ran = chapter_of(run), executed_cells(run)
    if run in UNTOUCHED:  # the student notebook's cells, in the assignment
        pairs = student_cells_of_assignment(name, ran)
        recorded, ran = zip(*pairs, strict=True)
    else:  # the instructor notebook's, after otter's first cell
        instructor = nbformat.read(
            ROOT / "notebooks" / "instructor" / f"{name}.ipynb", 4
        )
        recorded = shared_prefix_trimmed(name, instructor)
        ran = ran[1 : 1 + len(recorded)]
    problems = unprinted(recorded, ran)
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("run", SOLUTIONS)
def test_planted_answers_are_graded_with_the_right_sentence(run):
    name = chapter_of(run)
    planted = plants(name)
    names = {q.name for q in questions(name)}
    for question in names:
        count = sum(1 for p in planted if p.question == question and p.says)
        assert count >= 2, f"{question}: {count} planted wrong answers"
    assert {p.question for p in planted} == names
    reports = executed_cells(run)[-2 * len(names) - 2 * len(planted) :]
    for number, plant in enumerate(planted):
        what = f"{plant.question} ({' | '.join(plant.says) or 'full marks'})"
        cell = reports[2 * number + 1]
        assert not errors(cell) and not errors(reports[2 * number]), (
            f"{what}: {errors(reports[2 * number]) or errors(cell)}"
        )
        printed = "".join(
            o.text for o in cell.outputs if o.get("name") == "stdout"
        )
        assert printed.strip(), f"{what}: {cell.outputs}"
        report = json.loads(printed.strip().split("\n")[-1])
        if not plant.says:
            assert report["score"] == report["possible"], f"{what}: {report}"
            continue
        # The one sentence of a failed test's assertion: the public test's,
        # or a hidden test's where the public one passes.
        said, *hidden = (m.strip().split("\n")[-1] for m in report["messages"])
        if plant.hidden:
            assert said.endswith("passed"), f"{what}: {said!r}"
            assert report["score"] < report["possible"], f"{what}: {report}"
            said = next((h for h in hidden if "Error" in h), "")
        else:
            assert report["score"] == 0, f"{what} scored {report}"
        assert said.startswith("AssertionError: "), f"{what}: {said!r}"
        assert said.endswith((".", "?")), f"{what}: {said!r}"
        missing = [w for w in plant.says if w not in said]
        present = [w for w in plant.never if w in said]
        assert not missing and not present, f"{what}: {said!r}"


# Without a kernel: the comparison and the collection rule themselves.


def test_the_comparison_reports_what_nbval_reports_and_skips_the_rest():
    notebook = nbformat.read(ROOT / "notebooks" / "mechanics.ipynb", 4)
    recorded = next(
        c
        for c in notebook.cells
        if any(o.get("name") == "stdout" for o in c.get("outputs", []))
    )
    assert difference(recorded, copy.deepcopy(recorded)) == ""
    ran = copy.deepcopy(recorded)
    stream = next(o for o in ran.outputs if o.get("name") == "stdout")
    stream.text = stream.text.replace("(", "[", 1) + "one more line\n"
    assert "mismatch 'stdout'" in difference(recorded, ran)
    ran.outputs = []
    assert "Missing output fields" in difference(recorded, ran)
    ignored = copy.deepcopy(recorded)
    ignored.source = "# NBVAL_IGNORE_OUTPUT\n" + ignored.source
    assert difference(ignored, ran) == ""
    ran.outputs = [nbformat.v4.new_output("error", ename="E", evalue="x")]
    assert difference(ignored, ran) == "raised E: x"


def test_notebooks_executed_by_other_tests_are_left_to_them():
    from conftest import REGENERATED, NotebooksExecutedElsewhere

    ignore = NotebooksExecutedElsewhere.pytest_ignore_collect
    config = SimpleNamespace(args=["tests", "notebooks"])
    for name in (*GRADED, REGENERATED):
        for folder in ("notebooks", "notebooks/instructor"):
            assert ignore(ROOT / folder / f"{name}.ipynb", config)
    named = SimpleNamespace(args=["notebooks/mechanics.ipynb"])
    assert ignore(ROOT / "notebooks" / "mechanics.ipynb", named) is None
