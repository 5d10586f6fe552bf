"""tools/sass_cache.py: Quarto's Sass compiler, cached across renders.

A fake compiler stands in for dart-sass: it writes a CSS made from its
input and arguments, and counts its calls.
"""

import stat
import sys

import pytest
import sass_cache

FAKE_SASS = """#!{python}
import sys
from pathlib import Path
calls = Path(__file__).with_name("calls")
calls.write_text(calls.read_text() + " ".join(sys.argv[1:]) + "\\n")
if sys.argv[1] == "--version":
    print("1.0.fake")
    sys.exit(0)
source, output = sys.argv[1], sys.argv[2]
text = Path(source).read_text()
if "broken" in text:
    sys.exit(65)
Path(output).write_text("/* css */" + text + " ".join(sys.argv[3:]))
"""


@pytest.fixture
def sass(tmp_path):
    """(compile, calls, folder): compile(text) runs the cached compiler."""
    compiler = tmp_path / "tools" / "sass"
    compiler.parent.mkdir()
    compiler.write_text(FAKE_SASS.format(python=sys.executable))
    compiler.chmod(compiler.stat().st_mode | stat.S_IXUSR)
    (compiler.parent / "calls").write_text("")
    bootstrap = tmp_path / "bootstrap"
    bootstrap.mkdir()
    (bootstrap / "_variables.scss").write_text("$a: 1;")
    cache = tmp_path / "cache"

    def compile_text(text, output="out.css", extra=()):
        source = tmp_path / "in.scss"
        source.write_text(text)
        arguments = [str(source), str(tmp_path / output)]
        arguments += ["--style", "compressed", "--quiet", *extra]
        arguments.append(f"--load-path={bootstrap}")
        code = sass_cache.compile_cached(compiler, cache, arguments)
        return code, (tmp_path / output).read_text() if code == 0 else None

    def calls():
        return (compiler.parent / "calls").read_text().splitlines()

    return compile_text, calls, tmp_path


def test_a_theme_compiled_once_is_copied_after(sass):
    compile_text, calls, _ = sass
    first = compile_text("a { b: c }")
    assert first[0] == 0 and len(calls()) == 1
    # Same input, another render's output file: no compiler run.
    assert compile_text("a { b: c }", output="again.css") == first
    assert len(calls()) == 1


def test_no_source_map_is_written(sass):
    compile_text, calls, _ = sass
    compile_text("a { b: c }", extra=["--no-source-map"])
    assert calls()[0].count("--no-source-map") == 1


def test_what_decides_the_css_is_in_the_key(sass):
    compile_text, calls, folder = sass
    compile_text("a { b: c }")
    compile_text("a { b: d }")  # another input
    assert len(calls()) == 2
    compile_text("a { b: d }", extra=["--charset"])  # another option
    assert len(calls()) == 3
    imported = folder / "bootstrap" / "_variables.scss"
    imported.write_text("$a: 22;")  # a file it may import changed
    compile_text("a { b: d }", extra=["--charset"])
    assert len(calls()) == 4
    # A file it cannot import (a script's compiled bytecode) does not.
    (folder / "bootstrap" / "postrender.cpython-311.pyc").write_bytes(b"")
    compile_text("a { b: d }", extra=["--charset"])
    assert len(calls()) == 4


def test_a_failed_compile_is_not_kept(sass):
    compile_text, calls, folder = sass
    assert compile_text("broken")[0] == 65
    assert compile_text("broken")[0] == 65
    assert len(calls()) == 2
    assert not list((folder / "cache").glob("*.css"))


def test_other_calls_go_to_the_compiler(sass, capfd):
    _, calls, folder = sass
    compiler = folder / "tools" / "sass"
    code = sass_cache.compile_cached(compiler, folder / "cache", ["--version"])
    assert code == 0 and capfd.readouterr().out == "1.0.fake\n"
    assert calls() == ["--version"]


def test_only_the_newest_themes_are_kept(sass, monkeypatch):
    compile_text, _, folder = sass
    monkeypatch.setattr(sass_cache, "KEPT", 2)
    for number in range(4):
        compile_text(f"a {{ b: {number} }}")
    assert len(list((folder / "cache").glob("*.css"))) == 2


def test_the_compiler_is_quartos_own_unless_named(monkeypatch, tmp_path):
    monkeypatch.setenv("QUARTO_BIN_PATH", str(tmp_path))
    compiler = sass_cache.quarto_compiler()
    assert compiler.parent.name == "dart-sass"
    assert compiler.parent.parent.parent == tmp_path / "tools"
    monkeypatch.setenv("BOOK_DART_SASS", str(tmp_path / "missing"))
    monkeypatch.setenv("BOOK_SASS_CACHE", str(tmp_path / "cache"))
    assert sass_cache.main(["--version"]) == 2  # says there is none
