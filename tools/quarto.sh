#!/usr/bin/env bash
# Find the Quarto to render with, installing the pinned one when needed.
#
#   bash tools/quarto.sh         # prints the path of the quarto to use
#   bash tools/quarto.sh --pin   # prints the pinned version
#
# The pin is the `quarto-cli==X.Y.Z` line of requirements-render.txt.
# In order: $QUARTO when set; else the first `quarto` on PATH that is at
# least the pin; else .venv/bin/quarto when it is; else the pinned
# quarto-cli installed into .venv (its build downloads Quarto's release).
# Notes go to stderr; when no Quarto can be had, it says why and how to
# install one by hand, and exits 2. Called by tools/render.sh, after
# tools/setup.sh has made .venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pin=$(sed -n 's/^quarto-cli==\([0-9][0-9.]*\).*/\1/p' requirements-render.txt)
if [ -z "$pin" ]; then
    echo "render: no quarto-cli==X.Y.Z line in requirements-render.txt" >&2
    exit 2
fi
if [ "${1:-}" = "--pin" ]; then
    echo "$pin"
    exit 0
fi

# Whether version $1 is at least version $2 (numeric dotted parts; a
# suffix such as -dev is ignored).
at_least() {
    local -a have want
    local i
    IFS=. read -ra have <<<"${1%%[!0-9.]*}"
    IFS=. read -ra want <<<"$2"
    for i in 0 1 2 3; do
        if [ "$((10#${have[i]:-0}))" -ne "$((10#${want[i]:-0}))" ]; then
            [ "$((10#${have[i]:-0}))" -gt "$((10#${want[i]:-0}))" ]
            return
        fi
    done
    return 0
}

# The version a quarto executable reports, or nothing when it cannot run.
version_of() {
    "$1" --version 2>/dev/null | head -n 1 | tr -d '[:space:]' || true
}

use() {
    echo "render: using Quarto $2 at $1" >&2
    echo "$1"
    exit 0
}

if [ -n "${QUARTO:-}" ]; then
    version=$(version_of "$QUARTO")
    if [ -z "$version" ]; then
        echo "render: QUARTO=$QUARTO does not run (\`$QUARTO --version\`" \
            "failed); point QUARTO at a quarto executable, or unset it." >&2
        exit 2
    fi
    if ! at_least "$version" "$pin"; then
        echo "render: QUARTO is Quarto $version, older than the pinned" \
            "$pin (requirements-render.txt); using it as asked." >&2
    fi
    use "$QUARTO" "$version"
fi

while IFS= read -r candidate; do
    version=$(version_of "$candidate")
    if [ -n "$version" ] && at_least "$version" "$pin"; then
        use "$candidate" "$version"
    fi
    echo "render: skipping $candidate: Quarto ${version:-that does" \
        "not run}, older than the pinned $pin" >&2
done < <(type -aP quarto || true)

venv_quarto=$PWD/.venv/bin/quarto
if [ -x "$venv_quarto" ]; then
    version=$(version_of "$venv_quarto")
    if [ -n "$version" ] && at_least "$version" "$pin"; then
        use "$venv_quarto" "$version"
    fi
fi

# --no-deps: quarto-cli's dependencies (jupyter, nbclient, wheel) are not
# needed by the quarto command, and the first two are pinned in
# requirements.txt; this install must not change them. pip builds the
# package (downloading Quarto) before it touches .venv, so a failed
# download leaves .venv as it was.
echo "render: no Quarto $pin or newer on PATH; installing quarto-cli==$pin" \
    "into .venv (its build downloads Quarto's release)" >&2
log=$(mktemp "${TMPDIR:-/tmp}/quarto-install.XXXXXX")
if .venv/bin/pip install --disable-pip-version-check --no-deps \
    -r requirements-render.txt >"$log" 2>&1; then
    version=$(version_of "$venv_quarto")
    if [ -n "$version" ] && at_least "$version" "$pin"; then
        rm -f "$log"
        use "$venv_quarto" "$version"
    fi
    # Installed, but its quarto does not run here (an unsupported
    # platform): take it out again so .venv stays as it was.
    reason="the installed .venv/bin/quarto does not run"
    .venv/bin/pip uninstall --yes --quiet quarto-cli >>"$log" 2>&1 || true
else
    reason=$(grep -m 1 -E 'Error downloading|not supported|^ERROR' "$log" ||
        tail -n 1 "$log")
    reason=$(echo "$reason" | sed 's/^ *//')
fi
cat >&2 <<MSG
render: could not install Quarto $pin into .venv: ${reason:-pip failed} (pip's output: $log).
render: install Quarto $pin or newer by hand (https://quarto.org/docs/get-started/), then run this again, or set QUARTO=/path/to/quarto.
Everything but rendering works without Quarto, all tests included: bash tools/test.sh
MSG
exit 2
