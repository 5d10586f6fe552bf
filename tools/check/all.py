"""Every check of the book that needs no Quarto, from the command line.

The checks live with what they read: tools/check/lint.py checks the `.qmd`
sources, tools/check/outputs.py the notebooks and figures tools/regenerate.py
writes from them, and tools/check/students.py what a learner receives.
Each check takes the project root and returns a list of problems, each a
sentence that names the file (and line where there is one). An empty list
means the check passed. The tests in `tests/` call these functions on the
real book and, with planted mistakes, on copies of it.

    python -m tools.check.all   # run every check, print the problems
"""

from __future__ import annotations

import sys

from tools.check import lint as qmdcheck
from tools.check import outputs as outputcheck
from tools.check import students
from tools.source.book import ROOT

CHECKS = [
    qmdcheck.check_quarto_files,
    qmdcheck.check_fences,
    qmdcheck.check_crossrefs,
    qmdcheck.check_citations,
    qmdcheck.check_figure_cells,
    qmdcheck.check_headings,
    qmdcheck.check_one_sentence_per_line,
    qmdcheck.check_ruff,
    outputcheck.check_notebooks_in_sync,
    outputcheck.check_prose_numbers,
    outputcheck.check_clean_outputs,
    outputcheck.check_figure_outputs,
    outputcheck.check_exported_figures,
    qmdcheck.check_solutions_guarded,
    qmdcheck.check_every_exercise_has_a_solution,
    outputcheck.check_editions_agree,
]


def all_checks() -> list:
    """CHECKS, and the checks of what learners receive
    (tools/check/students.py)."""
    return CHECKS + students.CHECKS


def main() -> int:
    failed = 0
    for check in all_checks():
        problems = check(ROOT)
        status = "ok" if not problems else f"{len(problems)} problem(s)"
        print(f"{check.__name__}: {status}")
        for problem in problems:
            print(f"  {problem}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
