#!/usr/bin/env bash
# Print the path of the Quarto to render with: $QUARTO, else the first on
# PATH at least the pin of requirements-render.txt, else the pinned
# quarto-cli installed into .venv; exit 2 if none. `--pin`: the pin (CI).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pin=$(sed -n 's/^quarto-cli==\([0-9][0-9.]*\).*/\1/p' requirements-render.txt)
[ "${1:-}" = "--pin" ] && { echo "$pin"; exit 0; }
[ -n "${QUARTO:-}" ] && { echo "$QUARTO"; exit 0; }

recent() {  # version sort -C: the pin first, so not newer than $1's
    local version
    version=$("$1" --version 2>/dev/null | head -n 1) && [ -n "$version" ] &&
        printf '%s\n' "$pin" "${version%%-*}" | sort -V -C
}
while IFS= read -r candidate; do
    recent "$candidate" && { echo "$candidate"; exit 0; }
    echo "render: skipping $candidate, older than the pinned $pin" >&2
done < <(type -aP quarto || true)
venv_quarto=$PWD/.venv/bin/quarto
recent "$venv_quarto" && { echo "$venv_quarto"; exit 0; }

echo "render: installing quarto-cli==$pin into .venv" >&2
# --no-deps: the packages quarto-cli asks for are pinned in requirements.txt.
.venv/bin/pip install --quiet --disable-pip-version-check --no-deps \
    -r requirements-render.txt >&2 || true
recent "$venv_quarto" && { echo "$venv_quarto"; exit 0; }
# Else pip would count a failed download as installed, and never retry.
.venv/bin/pip uninstall --yes --quiet quarto-cli >/dev/null 2>&1 || true
echo "render: could not install Quarto $pin; install it by hand" \
    "(https://quarto.org/docs/get-started/) or set QUARTO=/path/to/quarto." \
    "Everything but rendering works without it: bash tools/test.sh" >&2
exit 2
