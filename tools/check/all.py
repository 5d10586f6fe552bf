"""Every check of the book that needs no Quarto.

    python -m tools.check.all   # run every check, print the problems

Each check takes the project root and returns its problems, each naming
the file (and line); tests/test_book.py runs them on the book.
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
