"""tools/render_book.py: the website and the PDF rendered side by side.

A fake `quarto` stands in for Quarto: it writes what each format's render
writes (the website, or the PDF and its frozen Typst results) where it is
run, so the tests see which folder each format ran in and what came back.
"""

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import render_book
import render_env
import yaml

PDF = "The-Transformer-Block.pdf"
# Like Quarto: `--to html` stages the PDF's figures beside the chapter and
# leaves them; `--to typst` writes the PDF and its frozen results. Both
# record where they ran and with which settings (`settings-html.json`, in
# IPYTHONDIR, which is in the book for both); FAKE_FAIL and FAKE_WARN make
# one misbehave.
FAKE_QUARTO = """#!{python}
import json, os, shutil, sys, time
from pathlib import Path
to = sys.argv[sys.argv.index("--to") + 1]
profile = "instructor" in sys.argv
out = Path("_book-instructor" if profile else "_book")
out.mkdir(exist_ok=True)
Path(f"ran-{{to}}").write_text(os.getcwd())
ipython = Path(os.environ.get("IPYTHONDIR", "no-ipython-dir"))
ipython.mkdir(parents=True, exist_ok=True)
(ipython / f"used-by-{{to}}").write_text(os.getcwd())
server = os.environ.get("BOOK_WARM_KERNELS")
for _ in range(500 if server else 0):  # as tools/warm_launcher.py waits
    if os.path.exists(server):
        break
    time.sleep(0.01)
(ipython / f"settings-{{to}}.json").write_text(json.dumps({{
    "server": server and os.path.exists(server),
    "kernelspecs": os.environ.get("JUPYTER_PATH"),
    "sass": os.environ.get("QUARTO_DART_SASS"),
    "v8": os.environ.get("QUARTO_DENO_V8_OPTIONS"),
    "arguments": sys.argv[1:],
}}))
cache = Path(os.environ.get("JUPYTERCACHE", ".jupyter_cache"))
cache.mkdir(parents=True, exist_ok=True)
(cache / f"executed-{{to}}").write_text(os.getcwd())
if to == "html":
    (out / "index.html").write_text("<html></html>")
    Path("chapters/a_files/figure-typst").mkdir(parents=True)
else:
    assert not Path(".git").exists() and not Path("notebooks").exists()
    (out / "{pdf}").write_text("%PDF")
    frozen = Path("_freeze/chapters/a")
    (frozen / "execute-results").mkdir(parents=True, exist_ok=True)
    (frozen / "execute-results/typ.json").write_text("new")
    shutil.rmtree(frozen / "figure-typst")  # executed again: new figures
    (frozen / "figure-typst").mkdir()
    (frozen / "figure-typst/f.svg").write_text("<svg/>")
if os.environ.get("FAKE_WARN") == to:
    print("WARN: chapters/a.html: Unable to resolve crossref @fig-x")
print(f"rendered {{to}}")
sys.exit(3 if os.environ.get("FAKE_FAIL") == to else 0)
"""


@pytest.fixture
def book(tmp_path):
    """A small book: config, a chapter, old frozen results, a notebook."""
    root = tmp_path / "book"
    (root / "chapters").mkdir(parents=True)
    (root / "chapters" / "a.qmd").write_text("# A\n")
    (root / "_quarto.yml").write_text("project:\n  output-dir: _book\n")
    (root / "_quarto-instructor.yml").write_text(
        "project:\n  output-dir: _book-instructor\n"
    )
    frozen = root / "_freeze" / "chapters" / "a"
    (frozen / "execute-results").mkdir(parents=True)
    (frozen / "execute-results" / "typ.json").write_text("old")
    (frozen / "execute-results" / "html.json").write_text("html")
    (frozen / "figure-typst").mkdir()
    (frozen / "figure-typst" / "stale.svg").write_text("<svg/>")
    (root / "notebooks").mkdir()
    (root / ".git").mkdir()
    quarto = tmp_path / "quarto"
    quarto.write_text(FAKE_QUARTO.format(python=sys.executable, pdf=PDF))
    quarto.chmod(quarto.stat().st_mode | stat.S_IXUSR)
    return root, str(quarto)


def test_website_here_and_pdf_in_a_copy(book):
    root, quarto = book
    code, log = render_book.render(quarto, [], root=root, echo=False)
    assert code == 0, log
    assert "rendered html" in log and "rendered typst" in log
    assert (root / "ran-html").read_text() == str(root)
    assert not (root / "ran-typst").exists(), "the PDF was made in the book"
    assert (root / "_book" / "index.html").is_file()
    assert (root / "_book" / PDF).read_text() == "%PDF"


def test_each_format_keeps_its_own_cache_of_executed_chapters(book):
    root, quarto = book
    assert render_book.render(quarto, [], root=root, echo=False)[0] == 0
    # The PDF is made in a copy, which is gone by now; its cache is in the
    # book for the next render, apart from the website's.
    caches = root / ".quarto"
    assert sorted(p.name for p in caches.rglob("executed-*")) == [
        "executed-html",
        "executed-typst",
    ]
    assert (caches / "jupyter-cache" / "executed-html").is_file()
    assert (caches / "jupyter-cache-pdf" / "executed-typst").is_file()
    # One page, as asked, uses the website's.
    render_book.render_as_asked(quarto, ["--to", "typst"], [], root)
    assert (caches / "jupyter-cache" / "executed-typst").is_file()


def test_frozen_typst_results_come_back(book):
    root, quarto = book
    render_book.render(quarto, [], root=root, echo=False)
    frozen = root / "_freeze" / "chapters" / "a"
    assert (frozen / "execute-results" / "typ.json").read_text() == "new"
    assert (frozen / "execute-results" / "html.json").read_text() == "html"
    figures = sorted(p.name for p in (frozen / "figure-typst").iterdir())
    assert figures == ["f.svg"]


def test_staged_figures_are_removed(book):
    root, quarto = book
    (root / "chapters" / "kept_files").mkdir()
    render_book.render(quarto, [], root=root, echo=False)
    assert not (root / "chapters" / "a_files").exists()
    assert (root / "chapters" / "kept_files").is_dir()


def test_profile_renders_into_its_output_folder(book):
    root, quarto = book
    code, log = render_book.render(
        quarto, ["instructor"], root=root, echo=False
    )
    assert code == 0, log
    assert (root / "_book-instructor" / PDF).is_file()
    assert render_book.output_dir(root, ["instructor"]) == "_book-instructor"


@pytest.mark.parametrize("to", ["html", "typst"])
def test_a_failed_format_fails_the_render(book, monkeypatch, to):
    root, quarto = book
    monkeypatch.setenv("FAKE_FAIL", to)
    code, log = render_book.render(quarto, [], root=root, echo=False)
    assert code == 3
    name = "website" if to == "html" else "PDF"
    assert f"render: the {name} failed (3)" in log
    # A failed render leaves no staged figures behind either.
    assert not (root / "chapters" / "a_files").exists()


@pytest.mark.parametrize("to", ["html", "typst"])
def test_a_warning_in_either_format_fails(book, monkeypatch, capsys, to):
    root, quarto = book
    monkeypatch.setenv("FAKE_WARN", to)
    monkeypatch.setattr(render_book, "ROOT", root)
    assert render_book.main([quarto]) == 1
    assert "Unable to resolve crossref @fig-x" in capsys.readouterr().err


def test_render_sh_uses_render_book_for_the_whole_book():
    script = (render_book.ROOT / "tools" / "render.sh").read_text("utf-8")
    call = 'exec .venv/bin/python tools/render_book.py "$QUARTO" "$@"'
    assert call in script


def test_one_page_is_rendered_as_asked(book, monkeypatch):
    root, quarto = book
    monkeypatch.setattr(render_book, "ROOT", root)
    assert render_book.main([quarto, "chapters/a.qmd", "--to", "html"]) == 0
    assert (root / "ran-html").read_text() == str(root)
    assert not (root / "_book" / PDF).exists()


def settings(root, to="html"):
    """What the fake Quarto's render in format `to` was given."""
    path = root / ".quarto" / "ipython" / f"settings-{to}.json"
    return json.loads(path.read_text())


def test_a_pages_kernels_come_from_a_warm_server(book):
    root, quarto = book
    arguments = ["chapters/a.qmd", "--to", "html"]
    assert render_book.render_as_asked(quarto, arguments, [], root)[0] == 0
    used = settings(root)
    assert used["server"]  # running while Quarto ran
    spec = Path(used["kernelspecs"]) / "kernels" / "python3" / "kernel.json"
    command = json.loads(spec.read_text())["argv"]
    assert command[1].endswith("tools/warm_launcher.py")


def test_a_page_forks_from_the_server_the_last_render_left(book, monkeypatch):
    """With BOOK_WARM_KERNEL_IDLE, the server outlasts the render."""
    root, quarto = book
    monkeypatch.setenv("BOOK_WARM_KERNEL_IDLE", "60")
    monkeypatch.setattr(render_book, "ROOT", root)
    asked = []

    def ensure(path, book_root, environment, idle):
        asked.append((path, book_root, idle))
        Path(path).touch()  # as if it listened there

    monkeypatch.setattr(render_book.warm_server, "ensure", ensure)
    # The whole book leaves one for the page rendered next...
    assert render_book.main([quarto]) == 0
    ((path, book_root, idle),) = asked
    assert (book_root, idle) == (root, 60)
    # ...whose kernels are sent to it.
    arguments = ["chapters/a.qmd", "--to", "html"]
    assert render_book.render_as_asked(quarto, arguments, [], root)[0] == 0
    assert len(asked) == 2 and asked[1][0] == path
    assert settings(root)["server"]
    Path(path).unlink()


def test_without_idle_time_no_server_outlasts_its_render(book, monkeypatch):
    root, quarto = book
    monkeypatch.setattr(render_book, "ROOT", root)
    monkeypatch.setattr(render_book.warm_server, "ensure", None)  # unused
    assert render_book.main([quarto]) == 0


def test_only_the_website_is_written_with_code_left_plain(book):
    root, quarto = book
    assert render_book.render(quarto, [], root=root, echo=False)[0] == 0
    assert render_book.PLAIN_CODE[0] in settings(root)["arguments"]
    assert (
        render_book.PLAIN_CODE[0] not in settings(root, "typst")["arguments"]
    )
    arguments = ["chapters/a.qmd", "--to", "html"]
    assert render_book.render_as_asked(quarto, arguments, [], root)[0] == 0
    assert render_book.PLAIN_CODE[0] in settings(root)["arguments"]
    assert render_book.website_only(["a.qmd", "-t", "html"])
    assert render_book.website_only(["--to=html"])
    assert not render_book.website_only(["a.qmd", "--to", "typst"])
    assert not render_book.website_only(["a.qmd"])  # both formats


def test_elsewhere_than_linux_a_pages_kernels_start_as_usual(
    book, monkeypatch
):
    root, quarto = book
    monkeypatch.setattr(render_book.sys, "platform", "darwin")
    arguments = ["chapters/a.qmd", "--to", "html"]
    assert render_book.render_as_asked(quarto, arguments, [], root)[0] == 0
    assert settings(root)["server"] is None


def test_the_whole_books_kernels_start_as_usual(book):
    """The PDF's render keeps the other core busy: no server."""
    root, quarto = book
    assert render_book.render(quarto, [], root=root, echo=False)[0] == 0
    for to in ("html", "typst"):
        assert settings(root, to)["server"] is None


def test_every_render_compiles_its_themes_through_the_cache(book):
    root, quarto = book
    assert render_book.render(quarto, [], root=root, echo=False)[0] == 0
    wrapper = Path(settings(root)["sass"])
    assert wrapper == root / ".quarto" / "bin" / "sass"
    assert "tools/sass_cache.py" in wrapper.read_text()


@pytest.mark.parametrize("given", [None, "--stack-trace-limit=5"])
def test_quarto_lets_v8_size_its_young_generation(book, monkeypatch, given):
    """Both formats, and a page alone; a flag the reader gives comes last."""
    root, quarto = book
    if given:
        monkeypatch.setenv("QUARTO_DENO_V8_OPTIONS", given)
    else:
        monkeypatch.delenv("QUARTO_DENO_V8_OPTIONS", raising=False)
    expected = ",".join(f for f in ["--max-heap-size=0", given] if f)
    assert render_book.render(quarto, [], root=root, echo=False)[0] == 0
    assert settings(root, "html")["v8"] == expected
    assert settings(root, "typst")["v8"] == expected
    arguments = ["chapters/a.qmd", "--to", "html"]
    (root / ".quarto" / "ipython" / "settings-html.json").unlink()
    assert render_book.render_as_asked(quarto, arguments, [], root)[0] == 0
    assert settings(root, "html")["v8"] == expected


def test_chapters_run_in_a_fresh_kernel_or_come_from_the_cache():
    config = yaml.safe_load((render_book.ROOT / "_quarto.yml").read_text())
    execute = config["execute"]
    assert execute["daemon"] is False  # no kernel kept from a render
    assert execute["cache"] is True
    assert execute["freeze"] == "auto"


TORN_DOWN = """
import atexit
class Part:
    def __del__(self):
        print("torn down")
part = Part()
atexit.register(print, "exit handler")
exec(open(STARTUP).read())
atexit.register(print, "chapter's exit handler")
"""


def test_render_kernels_exit_without_tearing_down(book):
    root, quarto = book
    assert render_book.render(quarto, [], root=root, echo=False)[0] == 0
    folder = root / ".quarto" / "ipython"
    assert (folder / "used-by-html").is_file()  # the website's kernels
    assert (folder / "used-by-typst").is_file()  # the PDF's, in its copy
    startup = folder / "profile_default" / "startup"
    startup /= render_env.KERNEL_STARTUP
    # A process that read it still runs the exit handlers registered after
    # it (a chapter's), then ends with code 0 without its teardown.
    script = TORN_DOWN.replace("STARTUP", repr(str(startup)))
    ended = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True
    )
    assert ended.returncode == 0
    assert ended.stdout == "chapter's exit handler\n"
    # IPython runs it in the chapter's namespace: it leaves no name there.
    names = (
        f"space = {{}}\nexec(open({str(startup)!r}).read(), space)\n"
        "print(sorted(n for n in space if not n.startswith('__')))"
    )
    left = subprocess.run(
        [sys.executable, "-c", names], capture_output=True, text=True
    )
    assert left.stdout == "[]\n", left.stderr
