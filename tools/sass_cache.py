"""Quarto's Sass compiler behind a cache that outlives one render.

Every `quarto render` of the website compiles its two themes (light and
dark) with dart-sass, about 0.4 s each here, although they change only
when the book's .scss files or Quarto do. Quarto keeps a compiled theme
across renders only when the theme imports no other file, and Bootstrap's
does (`useSessionCache = input.match(/@import/)` in Quarto's
src/core/sass.ts): the others it keeps for one Quarto process alone.

tools/render_env.py points Quarto's QUARTO_DART_SASS at this script, and
BOOK_SASS_CACHE at the folder of compiled themes. The compiler is the one
Quarto would have run (in its tools folder), or BOOK_DART_SASS when set.
Quarto calls this script as it calls dart-sass:

    sass_cache.py INPUT.scss OUTPUT.css --style compressed --quiet \\
        --load-path=DIR ...

The key is everything that decides the CSS: the input's text, the
options, the compiler (path, size, modification time) and every Sass or
CSS file in the load paths (path, size, modification time). A hit copies
the stored CSS to OUTPUT; a miss runs the compiler and stores its CSS.
Either way no source map is written (Quarto deletes the reference to one,
and keeps no map). Any other call (`--version`, say) goes to the compiler
as it is.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Compiled themes kept; older ones are deleted (each is about 0.3 MB).
KEPT = 8
NO_SOURCE_MAP = "--no-source-map"
# What an @import or @use can load. A load path holds other files too (the
# book's tools/site/ holds scripts, whose __pycache__ changes when they
# run, and fonts), which cannot change the CSS.
SASS_FILES = {".scss", ".sass", ".css"}
# The values of `--style`, the one option Quarto passes apart.
STYLES = {"compressed", "expanded"}


def compile_arguments(arguments: list[str]) -> tuple[str, str, list[str]]:
    """(input, output, options) of a compile call; ValueError otherwise."""
    if len(arguments) < 2:
        raise ValueError("not a compile call")
    source, output, *options = arguments
    if not source.endswith(".scss") or not output.endswith(".css"):
        raise ValueError("not a compile call")
    for option in options:
        if not option.startswith("--") and option not in STYLES:
            raise ValueError(f"an option this cache does not know: {option}")
    return source, output, options


def load_paths(options: list[str]) -> list[Path]:
    prefix = "--load-path="
    return [Path(o[len(prefix) :]) for o in options if o.startswith(prefix)]


def fingerprint(path: Path) -> str:
    status = path.stat()
    return f"{path}\t{status.st_size}\t{status.st_mtime_ns}\n"


def cache_key(compiler: Path, source: Path, options: list[str]) -> str:
    digest = hashlib.sha256()
    digest.update(fingerprint(compiler).encode())
    digest.update("\0".join(options).encode() + b"\0")
    digest.update(source.read_bytes())
    for folder in load_paths(options):
        for path in sorted(folder.rglob("*")):
            if path.suffix in SASS_FILES and path.is_file():
                digest.update(fingerprint(path).encode())
    return digest.hexdigest()


def store(cache: Path, key: str, css: Path) -> None:
    """Keep css as key's entry (atomically), and only the newest KEPT."""
    cache.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=cache, suffix=".partial")
    os.close(handle)
    shutil.copyfile(css, partial)
    os.replace(partial, cache / f"{key}.css")
    entries = sorted(cache.glob("*.css"), key=lambda p: p.stat().st_mtime)
    for old in entries[:-KEPT]:
        old.unlink(missing_ok=True)


def compile_cached(compiler: Path, cache: Path, arguments: list[str]) -> int:
    """Compile as `compiler ARGUMENTS` would; its exit code."""
    try:
        source, output, options = compile_arguments(arguments)
    except ValueError:
        return subprocess.run([str(compiler), *arguments]).returncode
    options = [o for o in options if o != NO_SOURCE_MAP] + [NO_SOURCE_MAP]
    key = cache_key(compiler, Path(source), options)
    stored = cache / f"{key}.css"
    if stored.is_file():
        shutil.copyfile(stored, output)
        os.utime(stored)  # recently used: pruned last
        return 0
    compiled = subprocess.run([str(compiler), source, output, *options])
    if compiled.returncode == 0:
        store(cache, key, Path(output))
    return compiled.returncode


def quarto_compiler() -> Path:
    """The dart-sass Quarto runs unless told otherwise (resources.ts)."""
    machine = platform.machine().lower()
    arch = {"arm64": "aarch64", "amd64": "x86_64"}.get(machine, machine)
    tools = Path(os.environ.get("QUARTO_BIN_PATH", "")) / "tools"
    return tools / arch / "dart-sass" / "sass"


def main(arguments: list[str]) -> int:
    compiler = Path(os.environ.get("BOOK_DART_SASS") or quarto_compiler())
    if not compiler.is_file():
        print(f"sass_cache: no Sass compiler at {compiler}", file=sys.stderr)
        return 2
    cache = Path(os.environ["BOOK_SASS_CACHE"])
    return compile_cached(compiler, cache, arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
