# `env_dir NAME PROJECT` prints $BOOK_ENV_DIR (else XDG_CACHE_HOME's
# transformer-block)/NAME-<checksum of PROJECT>; fails where not writable.
# Outside the book: Quarto lists every file in it at each render
# (quarto-dev/quarto-cli#6771).
env_dir() {
    local cache=${XDG_CACHE_HOME:-$HOME/.cache}/transformer-block
    cache=${BOOK_ENV_DIR:-$cache}
    mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || return 1
    echo "$cache/$1-$(printf %s "$2" | cksum | cut -d ' ' -f 1)"
}
