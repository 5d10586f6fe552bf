#!/usr/bin/env bash
# Render the book with Quarto into _book/ (the website and its PDF).
#
#   bash tools/render.sh                      # student edition -> _book/
#   bash tools/render.sh --profile instructor # -> _book-instructor/
#   bash tools/render.sh preview              # live preview in a browser
#   bash tools/render.sh chapters/x.qmd       # one chapter, website only
set -euo pipefail
cd "$(dirname "$0")/.."

source tools/setup.sh
# The Quarto to render with: $QUARTO, else one on PATH at least the version
# pinned in requirements-render.txt, else that version installed into .venv.
QUARTO=$(bash tools/quarto.sh)
# Quarto executes the chapters with the same Python as the tests.
export QUARTO_PYTHON="$PWD/.venv/bin/python"
if [ "${1:-}" = "preview" ]; then
    shift
    exec "$QUARTO" preview "$@"
fi
# The whole book, as it is published: the website and its PDF side by
# side, one core each (tools/render_book.py), warnings failing the render.
if [ "$#" -eq 0 ] || { [ "$#" -eq 2 ] && [ "$1" = "--profile" ]; }; then
    exec .venv/bin/python tools/render_book.py "$QUARTO" "$@"
fi
# Anything else (one chapter, one format): Quarto as asked. It exits 0
# even when it warns (an unresolved cross-reference, a missing citation):
# keep its output and fail on any warning in it.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$QUARTO" render "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    exit "$status"
fi
.venv/bin/python tools/render_log.py "$log"
