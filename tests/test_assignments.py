"""The graded assignments, as tools/assignments.py builds them.

tests/test_students.py shows that no answer reaches them;
tests/test_grading.py builds them with `otter assign` and grades them.
"""

import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from unittest import mock

import nbformat
import pytest
from conftest import ROOT

from tools import assignments
from tools.export import graded as graded_questions

GRADED = graded_questions.graded_chapters()


def undefined_in_solutions(name: str) -> str:
    """Names an answer of the solutions notebook uses but nothing defines
    (ruff's F821), the student notebook's code before the answers.

    The solutions notebook is the student notebook plus one answer cell
    per graded question, so a helper the reference solution needs must be
    in that cell or another one (tools/assignments.py, solution_cell).
    """
    student = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", 4)
    parsed = graded_questions.qmd.parse(graded_questions.chapter_path(name))
    script = "\n\n".join(
        [c.source for c in student.cells if c.cell_type == "code"]
        + [
            graded_questions.solution_cell(q)
            for q in graded_questions.questions(parsed)
        ]
    )
    command = ["ruff", "check", "--isolated", "--select", "F821", "-q"]
    command += ["--output-format", "concise", "--stdin-filename", name, "-"]
    return subprocess.run(
        [sys.executable, "-m", *command],
        input=script,
        capture_output=True,
        text=True,
    ).stdout


def test_solutions_notebooks_define_what_their_answers_use():
    problems = "".join(undefined_in_solutions(name) for name in GRADED)
    assert not problems, problems


def test_an_answer_without_its_helper_is_reported(monkeypatch):
    original = graded_questions.solution_cell
    monkeypatch.setattr(
        graded_questions,
        "solution_cell",
        lambda q: original(
            graded_questions.Question(**{**vars(q), "helpers": []})
        ),
    )
    assert "`silenced`" in undefined_in_solutions("maths-and-code")


def fake_bundle(folder: Path, name: str = "mechanics") -> None:
    autograder = folder / name / "dist" / "autograder"
    autograder.mkdir(parents=True)
    (autograder / f"{name}-autograder.zip").write_bytes(b"")


def test_a_class_is_graded_into_one_table_per_run(
    tmp_path, monkeypatch, capsys
):
    # One folder per learner, each holding mechanics.ipynb, as collected;
    # one that crashes otter, one missing: "not graded", and said.
    fake_bundle(tmp_path)
    assignment = (ROOT / "assignments" / "mechanics.ipynb").read_text()
    submissions = []
    for learner in ("ada", "bob", "eve"):
        (tmp_path / learner).mkdir()
        submissions.append(tmp_path / learner / "mechanics.ipynb")
    for path in submissions[:2]:
        path.write_text(assignment, encoding="utf-8")
    monkeypatch.setattr(assignments, "BUNDLES", tmp_path)
    timeouts = []

    def otter_run(archive, submission, output, timeout):
        timeouts.append(timeout)
        if "bob" in str(submission):
            return {}, "NotJSONError: not a notebook"
        return {"gelu-ffn": 4}, "cells raised: NameError: x"

    monkeypatch.setattr(assignments, "otter_run", otter_run)
    moment = mock.Mock(now=lambda: datetime(2030, 1, 2))
    monkeypatch.setattr(assignments, "datetime", moment)
    first = assignments.grade("mechanics", submissions, 2, 9)
    assert first.read_text(encoding="utf-8").splitlines() == [
        "learner,gelu-ffn,total,notes",
        "ada-mechanics,4,4,cells raised: NameError: x",
        "bob-mechanics,not graded,not graded,NotJSONError: not a notebook",
        "eve-mechanics,not graded,not graded,no such file",
    ]
    assert timeouts == [9, 9]
    said = capsys.readouterr().err
    assert "grade: bob-mechanics: NotJSONError: not a notebook" in said
    assert "grade: eve-mechanics: no such file" in said
    results = tmp_path / "mechanics" / "results" / "20300102-000000"
    assert sorted(p.name for p in results.iterdir()) == [
        "ada-mechanics",
        "bob-mechanics",
    ]
    # A second run in the same second: a table and a folder of its own.
    second = assignments.grade("mechanics", submissions[:1], jobs=1)
    assert first.name == "grades-20300102-000000.csv" and first.exists()
    assert second.name == "grades-20300102-000000-2.csv"
    assert (results.parent / "20300102-000000-2" / "mechanics").is_dir()
    twice = [Path("a/x.ipynb"), Path("a/x.ipynb")]
    assert assignments.learners(twice) == ["a-x", "a-x-2"]


def test_explain_answers_are_collected_with_the_submission(tmp_path):
    notebook = nbformat.read(ROOT / "assignments" / "systems.ipynb", 4)
    marked = [
        c for c in notebook.cells if c.source.startswith("**Your answer to")
    ]
    assert len(marked) == 1  # systems has one explain exercise
    marked[0].source += "\nThe weights, the biases and the config."
    path = tmp_path / "ada.ipynb"
    nbformat.write(notebook, path)
    assert graded_questions.hand_answers(path, tmp_path / "ada") == ["4.5"]
    answers = (tmp_path / "ada" / "answers.md").read_text("utf-8")
    assert answers.endswith("The weights, the biases and the config.")


def test_building_or_grading_says_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(assignments, "BUNDLES", tmp_path)
    with pytest.raises(SystemExit, match="'intuition' has no assignment"):
        assignments.build("intuition")
    assert not list(tmp_path.iterdir())
    submission = tmp_path / "a.ipynb"
    for name, submissions, said in [
        ("intuition", [submission], "'intuition' has no assignment"),
        ("mechanics", [submission], "tools.assignments build mech"),
        ("mechanic", [submission], "'mechanic' has no assignment"),
        ("mechanics", [], "at least one submitted notebook"),
    ]:
        with pytest.raises(SystemExit, match=said):
            assignments.grade(name, submissions)


def running(pid: int) -> bool:
    """Whether a process exists and has not ended (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


# Otter's grading as it hangs: a kernel started, a cell that never ends.
# The pid is written as soon as the kernel is launched (0.4 s here), so a
# short timeout finds it even on a loaded machine; a kernel killed while it
# starts up still ends itself once its poller runs.
HANGS = """import sys, time
from jupyter_client.manager import KernelManager
manager = KernelManager()
manager.start_kernel()
with open(sys.argv[3] + "/kernel.pid", "w") as file:
    file.write(str(manager.provisioner.process.pid))
time.sleep(120)
"""


def test_a_submission_that_never_ends_is_stopped_with_its_kernel(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(assignments, "GRADER", HANGS)
    started = time.perf_counter()
    said = assignments.otter_run(Path("a.zip"), Path("a"), tmp_path, 2)
    assert said == ({}, "still running after 2 s")
    assert time.perf_counter() - started < 30
    pid = int((tmp_path / "kernel.pid").read_text())
    # The kernel sees its parent gone within a second of its start-up.
    for _ in range(100):
        if not running(pid):
            break
        time.sleep(0.1)
    assert not running(pid)


def test_building_again_keeps_earlier_grades(tmp_path, monkeypatch):
    monkeypatch.setattr(assignments, "BUNDLES", tmp_path)

    def otter_assign(name, destination):
        result = destination / "dist"
        (result / "autograder").mkdir(parents=True)
        (result / "autograder" / "new.zip").write_bytes(b"")
        return result

    monkeypatch.setattr(assignments, "run_otter_assign", otter_assign)
    fake_bundle(tmp_path)
    (tmp_path / "mechanics" / "dist" / "stale.txt").write_text("old")
    kept = tmp_path / "mechanics" / "grades-20300101-000000.csv"
    kept.write_text("submission,total\n", encoding="utf-8")
    assert assignments.build("mechanics").name == "new.zip"
    assert kept.exists()
    assert not (tmp_path / "mechanics" / "dist" / "stale.txt").exists()


def test_the_course_states_the_grading_timeout():
    course = (ROOT / "chapters" / "course.qmd").read_text("utf-8")
    minutes = assignments.GRADING_TIMEOUT // 60
    assert f"still running after {minutes} minutes" in course


def test_the_first_cell_opens_the_checks_on_colab(tmp_path, monkeypatch):
    """Colab: no notebook file; the cell fetches the public tests."""
    import types
    import urllib.request

    path = ROOT / "assignments" / "mechanics.ipynb"
    cells = nbformat.read(path, 4).cells
    first = next(c.source for c in cells if c.cell_type == "code")
    colab = types.ModuleType("google.colab")
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setattr(urllib.request, "urlopen", lambda url: path.open())
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(first, namespace)
    assert (tmp_path / "tests" / "gelu-ffn.py").is_file()
    # The test needs nothing of the notebook but the answer.
    answer = {"my_gelu_ffn": lambda sequence, W1, W2: None}
    checked = namespace["grader"].check("gelu-ffn", answer)
    assert "Your function returns None" in repr(checked)
