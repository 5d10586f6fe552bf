"""Say which required package is missing, and how to install it.

    python tools/check_env.py            # check requirements.txt
    python tools/check_env.py --quiet    # only the exit code

Every package pinned in `requirements.txt` must be installed in the Python
that runs this (any version: the weekly workflow tests newer releases).
Exits 0 when all are there; otherwise prints one line per missing package
and how to install it, and exits 1. Standard library only, so it runs
before anything is installed. `tools/setup.sh` uses it to reinstall a
broken `.venv`, and `tools/test.sh` runs it before pytest.
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOW = (
    "run `bash tools/test.sh` (it installs requirements.txt into .venv) "
    "or `pip install -r requirements.txt`"
)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def applies(marker: str) -> bool:
    """Whether an environment marker (`; sys_platform != ...`) holds."""
    if not marker.strip():
        return True
    try:
        from packaging.markers import Marker
    except ImportError:
        return True  # cannot tell; check the package anyway
    return Marker(marker).evaluate()


def required(requirements: Path) -> list[str]:
    """Distribution names in a requirements file, for this platform."""
    names = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        spec, _, marker = line.partition(";")
        match = NAME.match(spec.strip())
        if match and applies(marker):
            names.append(match.group(0))
    return names


def pinned(requirements: Path, name: str) -> str | None:
    """The version a requirements file pins name to (`name==X.Y.Z`)."""
    if not requirements.is_file():
        return None
    for line in requirements.read_text(encoding="utf-8").splitlines():
        spec = line.split("#", 1)[0].partition(";")[0].strip()
        if spec.startswith(f"{name}=="):
            return spec.removeprefix(f"{name}==").strip()
    return None


def missing(requirements: Path) -> list[str]:
    absent = []
    for name in required(requirements):
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            absent.append(name)
    return absent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--requirements",
        type=Path,
        default=ROOT / "requirements.txt",
        help="requirements file to check (default: requirements.txt)",
    )
    parser.add_argument("--quiet", action="store_true", help="no output")
    args = parser.parse_args(argv)
    absent = missing(args.requirements)
    if absent and not args.quiet:
        for name in absent:
            print(f"missing package {name}: {HOW}", file=sys.stderr)
        print(f"(checked with {sys.executable})", file=sys.stderr)
    return 1 if absent else 0


if __name__ == "__main__":
    sys.exit(main())
