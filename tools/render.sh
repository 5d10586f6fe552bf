#!/usr/bin/env bash
# Render the book with Quarto into _book/ (the website and its PDF).
#
#   bash tools/render.sh                      # student edition -> _book/
#   bash tools/render.sh --profile instructor # -> _book-instructor/
#   bash tools/render.sh preview              # live preview in a browser
#   bash tools/render.sh chapters/x.qmd --to html  # one chapter's page
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
    # The cache of executed chapters tools/render_book.py renders with.
    export JUPYTERCACHE="$PWD/.quarto/jupyter-cache"
    exec "$QUARTO" preview "$@"
fi
# The whole book: the website and its PDF side by side, one core each;
# anything else (one chapter's page, one format) as Quarto is asked. Quarto
# exits 0 even when it warns (an unresolved cross-reference, a missing
# citation): tools/render_book.py fails on any warning in its output.
exec .venv/bin/python tools/render_book.py "$QUARTO" "$@"
