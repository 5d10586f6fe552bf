"""Find Quarto's warnings in the output of a render.

    python tools/check/render_log.py render.log   # list them; exit 1 if any

`quarto render` exits 0 even when it warns, and a warning is a broken book:
an unresolved cross-reference, a missing citation. `tools/render.sh` passes
the render's output through this, and tests/test_render.py uses `warnings`.

`--fail-if-warnings` fails only on Pandoc's warnings, not on an
unresolved cross-reference, so the log is read here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# What Quarto and pandoc print when they warn, once colours are removed:
#   [WARNING] Citeproc: citation nokey2020 not found          (pandoc)
#   WARN: chapters/b.html: Unable to resolve crossref @fig-x  (Quarto)
#   WARNING (.../crossref.lua:12) Unable to resolve ...       (Lua filters)
#   WARNING: ...                                              (older filters)
#   (W) ...                                                   (Lua filters)
# Not a bare "WARNING" anywhere in a line: every kernel start prints
# "[IPKernelApp] WARNING | Kernel is running over TCP without encryption".
WARNING = re.compile(r"\[WARNING\]|WARN:|^WARNING\b|^\(W\)", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def warnings(log: str) -> list[str]:
    """The lines of a render's output that are warnings."""
    lines = ANSI.sub("", log).splitlines()
    return [line for line in lines if WARNING.search(line)]


def report(log: str) -> int:
    """List the log's warnings on stderr; 1 if there are any, else 0."""
    found = warnings(log)
    if found:
        print(f"render: Quarto warned {len(found)} time(s):", file=sys.stderr)
        for line in found:
            print(f"  {line}", file=sys.stderr)
    return 1 if found else 0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().split("\n")[2].strip(), file=sys.stderr)
        return 2
    return report(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
