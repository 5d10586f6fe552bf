#!/usr/bin/env bash
# Set up the book's environment (once) and run every test.
#
#   bash tools/test.sh              # everything
#   bash tools/test.sh tests/       # only the checks, not the notebooks
#   bash tools/test.sh -k mechanics # any pytest arguments pass through
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
exec .venv/bin/python -m pytest "$@"
