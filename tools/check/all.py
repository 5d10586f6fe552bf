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
    failed = False
    for check in all_checks():
        problems = check(ROOT)
        status = f"{len(problems)} problem(s)" if problems else "ok"
        print(f"{check.__name__}: {status}", *problems, sep="\n  ")
        failed |= bool(problems)
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
