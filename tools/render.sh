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
QUARTO=$(bash tools/quarto.sh)
# The same Python as the tests runs the chapters and the post-render step.
export QUARTO_PYTHON="$PWD/.venv/bin/python" PATH="$PWD/.venv/bin:$PATH"
if [ "${1:-}" = "preview" ]; then
    shift
    exec "$QUARTO" preview "$@"
fi
exec .venv/bin/python -m tools.render_book "$QUARTO" "$@"
