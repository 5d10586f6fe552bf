"""Every check of the book that needs no Quarto, each `check_...(root)`
returning its problems: `python -m tools.check.all` prints them.
"""

from __future__ import annotations

import sys

from tools.check import lint, outputs, students
from tools.source.book import ROOT


def all_checks() -> list:
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
