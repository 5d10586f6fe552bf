#!/usr/bin/env bash
# Render the book with Quarto into _book/ (the website and its PDF).
#
#   bash tools/render.sh                      # student edition -> _book/
#   bash tools/render.sh --profile instructor # -> _book-instructor/
#   bash tools/render.sh preview              # live preview in a browser
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v quarto >/dev/null; then
    cat >&2 <<'MSG'
render: Quarto is not installed (no `quarto` command on PATH).
Install Quarto 1.7 or newer from https://quarto.org/docs/get-started/
(or `pip install quarto-cli`, which downloads Quarto while it installs),
then run this command again. Everything except rendering, including all
tests, works without Quarto: bash tools/test.sh
MSG
    exit 2
fi
source tools/setup.sh
# Quarto executes the chapters with the same Python as the tests.
export QUARTO_PYTHON="$PWD/.venv/bin/python"
if [ "${1:-}" = "preview" ]; then
    shift
    exec quarto preview "$@"
fi
# Quarto exits 0 even when it warns (an unresolved cross-reference, a
# missing citation): keep its output and fail on any warning in it.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
quarto render "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    exit "$status"
fi
.venv/bin/python tools/render_log.py "$log"
