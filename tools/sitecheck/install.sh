#!/usr/bin/env bash
# Install the site check's packages, exactly package-lock.json (npm ci).
#
#   bash tools/sitecheck/install.sh
#
# They go outside the project, with tools/sitecheck/node_modules a link to
# them, as tools/setup.sh does with .venv and for the same reason: Quarto
# lists every file under the book at each render, and these 8,000 files
# cost every page's render 0.2 to 0.4 s. Symbolic links it does not follow.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v npm >/dev/null; then
    echo "sitecheck: npm not found; install Node.js 18.16 or newer." >&2
    exit 2
fi
cache=${BOOK_ENV_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/transformer-block}
project=$(cd ../.. && pwd)
name=$(node -e 'const {createHash} = require("node:crypto");
console.log(createHash("sha256").update(process.argv[1]).digest("hex"))' \
    "$project" | cut -c1-12)
packages=$cache/sitecheck-$name
if ! mkdir -p "$packages" 2>/dev/null || [ ! -w "$packages" ]; then
    echo "sitecheck: $cache is not writable; installing into the project" \
        "(renders are slower)"
    rm -f node_modules
    exec npm ci --no-audit --no-fund
fi
cp package.json package-lock.json "$packages/"
(cd "$packages" && npm ci --no-audit --no-fund)
rm -rf node_modules
ln -s "$packages/node_modules" node_modules
echo "sitecheck: packages in $packages/node_modules"
