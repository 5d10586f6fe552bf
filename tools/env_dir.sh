# Sourced by tools/setup.sh and tools/sitecheck/install.sh. Environments
# live outside the book: Quarto lists every file under it at each render
# (quarto-dev/quarto-cli#6771). `env_dir NAME PROJECT` prints
# CACHE/NAME-<checksum of PROJECT>, CACHE being BOOK_ENV_DIR, else
# XDG_CACHE_HOME/transformer-block; it fails where CACHE is not writable.
env_dir() {
    local cache=${XDG_CACHE_HOME:-$HOME/.cache}/transformer-block
    cache=${BOOK_ENV_DIR:-$cache}
    mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || return 1
    echo "$cache/$1-$(printf %s "$2" | cksum | cut -d ' ' -f 1)"
}
