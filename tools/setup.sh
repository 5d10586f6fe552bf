#!/usr/bin/env bash
# Create .venv and install requirements.txt into it (again only when the
# file changed). Sourced by tools/test.sh and tools/render.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null; then
    echo "setup: $python not found; install Python 3.10 or newer." >&2
    exit 2
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "setup: needs Python 3.10 or newer ($python is older)." >&2
    exit 2
fi
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv with $("$python" --version)"
    "$python" -m venv .venv
fi
stamp=.venv/requirements.installed
# Install when requirements.txt changed, or when a package it lists has gone
# missing from .venv (tools/check_env.py names it).
if ! cmp -s requirements.txt "$stamp" ||
    ! .venv/bin/python tools/check_env.py --quiet; then
    echo "setup: installing requirements.txt into .venv"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check \
        -r requirements.txt
    cp requirements.txt "$stamp"
fi
# One thread keeps float reductions in the order used when the notebooks
# were generated.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Build matplotlib's font cache now, not inside the first kernel, where its
# one-time notice would become an unexpected output.
.venv/bin/python -c 'import matplotlib.font_manager'
