"""`otter run`, otter's own local grading command, on whole notebooks.

The instructor's solutions notebook of the mechanics assignment scores full
marks and the untouched student assignment scores 0 without crashing. The
other chapters' questions are graded in this process by the same test
files (tests/test_assignments.py).

Each `otter run` executes a whole chapter in a fresh kernel (about 10 s of
CPU), more than the suite's 30 s budget allows, so these tests are opt-in:
`BOOK_GRADING=1 bash tools/test.sh tests/test_grading.py`, which the GitHub
workflow runs after the suite.
"""

import os
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT

import assignments

CHAPTER = "mechanics"
pytestmark = pytest.mark.skipif(
    os.environ.get("BOOK_GRADING") != "1",
    reason="otter run is opt-in (two notebook executions): "
    "BOOK_GRADING=1 bash tools/test.sh tests/test_grading.py",
)


@pytest.fixture(scope="module")
def built():
    """The chapter's autograder zip and solutions notebook, freshly built."""
    scratch = Path(tempfile.mkdtemp(prefix="otter-grade-"))
    result = assignments.run_otter_assign(CHAPTER, scratch)
    archive = next((result / "autograder").glob("*.zip"))
    return archive, result / "autograder" / f"{CHAPTER}.ipynb", scratch


def points() -> int:
    parsed = assignments.qmd.parse(ROOT / "chapters" / f"{CHAPTER}.qmd")
    return sum(q.points for q in assignments.questions(parsed))


@pytest.mark.parametrize("submission", ["solutions", "untouched"])
def test_otter_run_grades_the_notebook(built, submission):
    archive, solutions, scratch = built
    notebook = {
        "solutions": solutions,
        "untouched": ROOT / "assignments" / f"{CHAPTER}.ipynb",
    }[submission]
    scores = assignments.otter_run(archive, notebook, scratch / submission)
    assert scores, f"otter run wrote no results for the {submission}"
    total = sum(scores.values())
    expected = points() if submission == "solutions" else 0
    assert total == expected, f"{submission} scored {scores}"
