# Sourced by tools/setup.sh and tools/sitecheck/install.sh: where each keeps
# its environment. Outside the book, since Quarto lists every file under
# the book's folder at each render (quarto-dev/quarto-cli#6771) and does
# not follow symbolic links; one per clone, named after the clone's path.
#
#   env_dir NAME PROJECT   # prints CACHE/NAME-<checksum of PROJECT>
#
# CACHE is BOOK_ENV_DIR, else XDG_CACHE_HOME/transformer-block, else
# ~/.cache/transformer-block. It fails, printing nothing, when CACHE cannot
# be created or written: the caller then keeps its environment in the book.
env_dir() {
    local cache=${XDG_CACHE_HOME:-$HOME/.cache}/transformer-block
    cache=${BOOK_ENV_DIR:-$cache}
    mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || return 1
    echo "$cache/$1-$(printf %s "$2" | cksum | cut -d ' ' -f 1)"
}
