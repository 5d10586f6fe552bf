#!/usr/bin/env bash
# Check the rendered website before it is deployed; exit 1 on a defect
# (2 when it cannot run). Setup: `bash tools/sitecheck/install.sh`.
#
#   bash tools/sitecheck/check.sh [--no-lighthouse] [SITE]    (SITE: _book)
#
#   links       linkinator: every internal link, image, script and
#               stylesheet resolves, and every #anchor to an id of its page
#   browser     book_checks.mjs in Chromium: axe-core in both schemes,
#               JavaScript errors, other hosts, the layout (its header)
#   lighthouse  Lighthouse CI, mobile, 3 runs a page, every page but
#               404.html: lighthouserc.yml asserts the median; below the
#               performance floor blocks, below the 0.95 goal only warns
#
# A browser call that hangs fails after SITECHECK_TIMEOUT seconds (60;
# Lighthouse: 5 times that a page) with the page named, and the page is
# tried once more. Chromium: CHROME_PATH, else chromium or google-chrome.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/node_modules/.bin
lighthouse=1
site=_book
for argument in "$@"; do
    case $argument in
        --no-lighthouse) lighthouse=0 ;;
        -*) sed -n '2,/^set/p' "$0" | sed '$d'; exit 2 ;;
        *) site=$argument ;;
    esac
done
fail() { echo "sitecheck: $*" >&2; exit 2; }
[ -f "$site/index.html" ] || fail "no $site/index.html: render the book first"
[ -x "$bin/lhci" ] || fail "run \`bash tools/sitecheck/install.sh\` first"
CHROME_PATH=${CHROME_PATH:-$(command -v chromium chromium-browser google-chrome \
    google-chrome-stable | head -n 1)}
[ -x "$CHROME_PATH" ] || fail "no Chromium: install it or set CHROME_PATH"
export CHROME_PATH
timeout=${SITECHECK_TIMEOUT:-60}
site=$(cd "$site" && pwd)
mapfile -t pages < <(cd "$site" && find . -name '*.html' -not -path './site_libs/*' \
    | cut -c3- | sort)
# The folder GitHub Pages serves the site from, as Quarto writes it into
# 404.html, whose links start with it ("/transformer-block/"; else "/").
prefix=$(grep -o 'name="quarto:offset" content="/[^"]*' "$site/404.html" 2>/dev/null \
    | cut -d '"' -f 4)
prefix=${prefix:-/}
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server"; rm -rf "$work"' EXIT
status=0
declare -A result
# Runs a check (the command after its name) and records its result.
check() { if "${@:2}"; then result[$1]=passed; else result[$1]=FAILED status=1; fi; }
echo "== links and anchors (linkinator)"
rewrite=()
[ "$prefix" != / ] && rewrite=(--url-rewrite-search "$prefix" --url-rewrite-replace /)
check links "$bin/linkinator" "${pages[@]}" --server-root "$site" --recurse --check-fragments \
    --skip '^https?://(?!localhost|127\.0\.0\.1)' "${rewrite[@]}" \
    --timeout $((timeout * 1000)) --verbosity error

echo "== the book's checks in Chromium (axe, errors, other hosts, layout)"
# Served as GitHub Pages serves it, under its folder.
root=$site
[ "$prefix" != / ] && root=$work/root && mkdir -p "$root" && ln -s "$site" "$root${prefix%/}"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 -d "$root" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do (: </dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done
check browser env SITECHECK_TIMEOUT="$timeout" node "$here/book_checks.mjs" \
    "http://127.0.0.1:$port$prefix" "${pages[@]}"

if [ $lighthouse = 1 ]; then
    echo "== Lighthouse CI (mobile; the median of each page's runs counts)"
    result[lighthouse]=passed
    cd "$work" || exit 2
    for page in "${pages[@]}"; do
        [ "$page" = 404.html ] && continue
        for attempt in 1 2; do
            timeout $((timeout * 5)) "$bin/lhci" collect --config="$here/lighthouserc.yml" \
                --additive --staticDistDir="$site" --url="/$page" >collect.log 2>&1 && break
            echo "$page: Lighthouse failed or hung ($(tail -n 1 collect.log))" \
                "$([ $attempt = 1 ] && echo '; once more')"
            [ $attempt = 2 ] && { result[lighthouse]=FAILED; status=1; }
        done
    done
    python3 - <<'EOF'
import glob, json, statistics
from urllib.parse import urlparse
runs = {}
for name in glob.glob(".lighthouseci/lhr-*.json"):
    lhr = json.load(open(name))
    runs.setdefault(urlparse(lhr["requestedUrl"]).path, []).append(lhr["categories"])
print("page  performance (each run; goal 0.95)  accessibility")
for page, scores in sorted(runs.items()):
    perf = [s["performance"]["score"] for s in scores]
    access = statistics.median(s["accessibility"]["score"] for s in scores)
    each = ", ".join(f"{p:.2f}" for p in perf)
    print(f"{page}  {statistics.median(perf):.2f} ({each})  {access:.2f}")
EOF
    "$bin/lhci" assert --config="$here/lighthouserc.yml" || { result[lighthouse]=FAILED; status=1; }
fi

echo
for check in links browser lighthouse; do
    echo "$check: ${result[$check]:-skipped}"
done
[ $status = 0 ] && echo "site check passed: ${#pages[@]} pages" || echo "site check FAILED"
exit $status
