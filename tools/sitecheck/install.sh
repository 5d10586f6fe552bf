#!/usr/bin/env bash
# Install the site check's packages, exactly package-lock.json (npm ci).
#
#   bash tools/sitecheck/install.sh
#
# They go outside the project, with tools/sitecheck/node_modules a link to
# them, as tools/setup.sh does with .venv (tools/env_dir.sh says why):
# inside, their 8,000 files cost every page's render 0.2 to 0.4 s.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v npm >/dev/null; then
    echo "sitecheck: npm not found; install Node.js 20 or newer." >&2
    exit 2
fi
source ../env_dir.sh
if ! packages=$(env_dir sitecheck "$(cd ../.. && pwd)"); then
    echo "sitecheck: no writable folder outside the book; installing into" \
        "the project (renders are slower)"
    rm -f node_modules
    exec npm ci --no-audit --no-fund
fi
mkdir -p "$packages"
cp package.json package-lock.json "$packages/"
(cd "$packages" && npm ci --no-audit --no-fund)
rm -rf node_modules
ln -s "$packages/node_modules" node_modules
echo "sitecheck: packages in $packages/node_modules"
