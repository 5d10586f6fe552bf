#!/usr/bin/env bash
# Set up the book's environment (once) and run every test.
#
#   bash tools/test.sh              # everything
#   bash tools/test.sh tests/       # only the checks, not the notebooks
#   bash tools/test.sh -k mechanics # any pytest arguments pass through
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "tools/test.sh: needs Python 3.10 or newer ($python is older)." >&2
    exit 2
fi
if [ ! -x .venv/bin/python ]; then
    echo "Creating .venv with $("$python" --version)"
    "$python" -m venv .venv
fi
# Reinstall only when requirements.txt changed since the last install.
stamp=.venv/requirements.installed
if ! cmp -s requirements.txt "$stamp"; then
    echo "Installing requirements.txt into .venv"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check \
        -r requirements.txt
    cp requirements.txt "$stamp"
fi

# One thread keeps float reductions in the same order as when the
# notebooks were generated.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Build matplotlib's font cache now, not inside the first kernel, where
# its one-time notice would appear as an unexpected output.
.venv/bin/python -c 'import matplotlib.font_manager'
exec .venv/bin/python -m pytest "$@"
