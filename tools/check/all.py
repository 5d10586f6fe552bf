"""Every check of the book that needs no Quarto: each `check_...` function
of tools/check/lint.py, outputs.py and students.py.

    python -m tools.check.all   # run every check, print the problems

Each check takes the project root and returns its problems, each naming
the file (and line); tests/test_book.py runs them on the book.
"""

from __future__ import annotations

import sys

from tools.check import lint, outputs, students
from tools.source.book import ROOT


def all_checks() -> list:
    """Every `check_...` function of the check modules, in their order."""
    return [
        function
        for module in (lint, outputs, students)
        for name, function in vars(module).items()
        if name.startswith("check_") and callable(function)
    ]


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
