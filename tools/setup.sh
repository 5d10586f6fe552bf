#!/usr/bin/env bash
# Create .venv and install requirements.txt into it (again only when the
# file changed). Sourced by tools/test.sh and tools/render.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

python=${PYTHON:-python3}
# Only to create .venv: once it exists, its own Python is the one used.
if [ ! -x .venv/bin/python ]; then
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
        echo "setup: needs Python 3.10 or newer as $python (or PYTHON)." >&2
        exit 2
    }
    # Outside the project, .venv a link to it (tools/env_dir.sh): its
    # 50,000 files cost a page's render 4 s inside.
    source tools/env_dir.sh
    if { [ -L .venv ] || [ ! -e .venv ]; } && env_dir=$(env_dir venv "$PWD")
    then
        echo "setup: creating $env_dir with $("$python" --version)"
        rm -rf "$env_dir" && rm -f .venv
        "$python" -m venv "$env_dir"
        ln -s "$env_dir" .venv
    else
        echo "setup: creating .venv with $("$python" --version)" \
            "(in the project: renders are slower)"
        "$python" -m venv .venv
    fi
fi
stamp=.venv/requirements.installed
if ! cmp -s requirements.txt "$stamp"; then
    echo "setup: installing requirements.txt into .venv"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check \
        -r requirements.txt
    cp requirements.txt "$stamp"
    # A render's cached chapters were executed with the packages before.
    rm -rf .jupyter_cache
fi
# One thread keeps float reductions in the order the notebooks recorded.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# matplotlib's font cache now, not in a kernel that would print about it.
.venv/bin/python -c 'import matplotlib.font_manager'
