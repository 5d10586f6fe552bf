"""Checks of the book's sources that need no Quarto.

Each check takes the project root and returns a list of problems, each a
sentence that names the file (and line where there is one). An empty list
means the check passed. The tests in `tests/` call these functions on the
real book and, with planted mistakes, on copies of it.

    python tools/bookcheck.py   # run every check, print the problems
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import figure_export  # noqa: E402
import qmd as qmd_module  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = ".venv/bin/python tools/regenerate.py"
CROSSREF_KINDS = ("fig", "eq", "tbl", "sec", "exr")
REFERENCE = re.compile(r"(?<![\w@])@((?:fig|eq|tbl|sec|exr)-[\w-]*\w)")
CITATION = re.compile(r"(?<![\w@./-])-?@([A-Za-z_][\w:.#$%&+?<>~/-]*\w)")
LABEL_ATTR = re.compile(r"\{[^}]*#((?:fig|eq|tbl|sec|exr)-[\w-]*\w)[^}]*\}")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
FENCED = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.S | re.M)
URL = re.compile(r"<?https?://\S+")


# ----------------------------------------------------------------- the book


def quarto_config(root: Path) -> dict:
    return qmd_module.load_yaml(
        (root / "_quarto.yml").read_text(encoding="utf-8")
    )


def book_files(root: Path) -> list[str]:
    """Every file `_quarto.yml` lists as a chapter or appendix, in order."""
    book = quarto_config(root).get("book", {})
    files: list[str] = []
    for key in ("chapters", "appendices"):
        for entry in book.get(key, []) or []:
            if isinstance(entry, str):
                files.append(entry)
            elif isinstance(entry, dict):
                if "href" in entry:
                    files.append(entry["href"])
                files.extend(entry.get("chapters", []) or [])
    return files


def notebook_chapters(root: Path) -> list[str]:
    """Stems of the chapters that contain python code (one notebook each)."""
    names = []
    for path in sorted((root / "chapters").glob("[!_]*.qmd")):
        if qmd_module.parse(path).chunks():
            names.append(path.stem)
    return names


def notebook_path(root: Path, name: str, edition: str) -> Path:
    if edition == "student":
        return root / "notebooks" / f"{name}.ipynb"
    return root / "notebooks" / edition / f"{name}.ipynb"


def parsed_book(root: Path) -> tuple[dict, list[str]]:
    """Parse every `.qmd` of the book; return parsed files and problems."""
    parsed, problems = {}, []
    partials = [
        str(path.relative_to(root))
        for path in sorted((root / "chapters").glob("_*.qmd"))
    ]
    paths = sorted({*book_files(root), *_chapter_files(root), *partials})
    for relative in paths:
        path = root / relative
        if not path.exists() or path.suffix != ".qmd":
            continue
        try:
            parsed[relative] = qmd_module.parse(path)
        except qmd_module.QmdError as error:
            problems.append(str(error).replace(str(root) + "/", ""))
    return parsed, problems


def _chapter_files(root: Path) -> list[str]:
    """Chapter files; `_name.qmd` files are partials Quarto never renders
    alone (they are pulled into a chapter with the include shortcode)."""
    return [
        str(path.relative_to(root))
        for path in sorted((root / "chapters").glob("[!_]*.qmd"))
    ]


def _prose(parsed: dict):
    """(file, first line, text) of every markdown stretch of the book, with
    code, maths and URLs blanked so they are not mistaken for prose."""
    for relative, qmd in parsed.items():
        for part in qmd.parts:
            if part[0] == "markdown":
                yield relative, part[2], _prose_without_code(part[1])


def _prose_without_code(text: str) -> str:
    """Prose with fenced blocks, inline code, maths and URLs blanked."""
    for pattern in (FENCED, INLINE_CODE, MATH, URL):
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text


# ------------------------------------------------------------------ checks


def check_quarto_files(root: Path) -> list[str]:
    """Files named in `_quarto.yml` exist; every chapter file is named."""
    problems = []
    listed = book_files(root)
    for relative in listed:
        if not (root / relative).exists():
            problems.append(
                f"_quarto.yml: lists {relative}, which does not exist"
            )
    bibliography = quarto_config(root).get("bibliography")
    if bibliography and not (root / bibliography).exists():
        problems.append(f"_quarto.yml: bibliography {bibliography} is missing")
    for relative in _chapter_files(root):
        if relative not in listed:
            problems.append(
                f"{relative}: not listed under book: chapters or appendices "
                "in _quarto.yml, so the website would leave it out"
            )
    if "index.qmd" not in listed:
        problems.append("_quarto.yml: index.qmd must be the first chapter")
    return problems


def check_fences(root: Path) -> list[str]:
    """Code chunks, code fences and fenced divs are all closed."""
    return parsed_book(root)[1]


def labels(parsed: dict) -> dict[str, str]:
    """Every cross-reference label in the book, mapped to its file."""
    found = {}
    for relative, qmd in parsed.items():
        for match in LABEL_ATTR.finditer(qmd.prose()):
            found[match.group(1)] = relative
        for chunk in qmd.chunks():
            label = str(chunk.options.get("label", ""))
            if label.startswith(tuple(k + "-" for k in CROSSREF_KINDS)):
                found[label] = relative
    return found


def check_crossrefs(root: Path) -> list[str]:
    """Every @fig-, @eq-, @tbl- and @sec- reference has its label."""
    parsed, problems = parsed_book(root)
    known = labels(parsed)
    for relative, first, text in _prose(parsed):
        for match in REFERENCE.finditer(text):
            if match.group(1) not in known:
                line = first + text[: match.start()].count("\n")
                problems.append(
                    f"{relative}:{line}: @{match.group(1)} refers to a "
                    "label that no chapter defines"
                )
    return problems


def bib_keys(root: Path) -> set[str]:
    bibliography = quarto_config(root).get("bibliography", "references.bib")
    text = (root / bibliography).read_text(encoding="utf-8")
    return set(re.findall(r"^\s*@\w+\s*\{\s*([^,\s]+)\s*,", text, re.M))


def check_citations(root: Path) -> list[str]:
    """Every citation key exists in references.bib."""
    parsed, problems = parsed_book(root)
    keys = bib_keys(root)
    crossref = tuple(kind + "-" for kind in CROSSREF_KINDS)
    for relative, first, text in _prose(parsed):
        for match in CITATION.finditer(text):
            key = match.group(1)
            if key not in keys and not key.startswith(crossref):
                line = first + text[: match.start()].count("\n")
                problems.append(
                    f"{relative}:{line}: cites @{key}, which is not in "
                    "references.bib"
                )
    return problems


def check_figure_cells(root: Path) -> list[str]:
    """Every figure cell has a fig- label, fig-cap and fig-alt."""
    parsed, problems = parsed_book(root)
    for relative, qmd in parsed.items():
        for chunk in qmd.chunks():
            options = chunk.options
            label = str(options.get("label", ""))
            draws = "plt.show()" in chunk.source
            if not draws and not label.startswith("fig-"):
                continue
            where = f"{relative}:{chunk.line}"
            if not label.startswith("fig-"):
                problems.append(
                    f"{where}: a cell that draws a figure needs "
                    "'#| label: fig-...'"
                )
            for option in ("fig-cap", "fig-alt"):
                if not str(options.get(option, "")).strip():
                    problems.append(
                        f"{where}: figure cell '{label}' has no {option}"
                    )
    return problems


def check_ruff(root: Path) -> list[str]:
    """Chapter code passes `ruff format --check` and `ruff check`."""
    parsed, problems = parsed_book(root)
    config = root / "pyproject.toml"
    with tempfile.TemporaryDirectory() as folder:
        origin = {}
        for relative, qmd in parsed.items():
            notebook = qmd_module.to_notebook(qmd, "instructor")
            if not any(c.cell_type == "code" for c in notebook.cells):
                continue
            target = Path(folder) / (Path(relative).stem + ".ipynb")
            target.write_text(nbformat.writes(notebook), encoding="utf-8")
            origin[target.name] = (relative, qmd)
        if not origin:
            return problems
        commands = [
            ["check", "--output-format", "json"],
            ["format", "--check"],
        ]
        for command in commands:
            result = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "ruff",
                    *command,
                    # Fresh temporary files every run: a cache would only
                    # pile up entries in the project's .ruff_cache.
                    "--no-cache",
                    "--config",
                    str(config),
                    folder,
                ],
                capture_output=True,
                text=True,
            )
            if command[0] == "check":
                problems += _ruff_check_problems(result.stdout, origin)
            else:
                problems += _ruff_format_problems(
                    result.stdout + result.stderr, origin
                )
    return problems


def _chunk_line(qmd, cell_number: int, row: int) -> int:
    """The `.qmd` line of row `row` of code cell number `cell_number`."""
    chunks = qmd.chunks()
    if 1 <= cell_number <= len(chunks):
        return chunks[cell_number - 1].line + row
    return 0


def _ruff_check_problems(stdout: str, origin: dict) -> list[str]:
    problems = []
    for finding in json.loads(stdout or "[]"):
        relative, qmd = origin[Path(finding["filename"]).name]
        cell = finding.get("cell") or 0
        row = finding["location"]["row"]
        line = _chunk_line(qmd, cell, row)
        problems.append(
            f"{relative}:{line}: ruff {finding['code']}: {finding['message']}"
        )
    return problems


def _ruff_format_problems(output: str, origin: dict) -> list[str]:
    problems = []
    for name, (relative, _) in origin.items():
        if name in output:
            problems.append(
                f"{relative}: code is not formatted as `ruff format` would; "
                f"run `ruff format` on the chunk code (line length 79) or "
                f"see `ruff format --diff notebooks/instructor/{name}`"
            )
    return problems


def check_notebooks_in_sync(root: Path) -> list[str]:
    """Each notebook's cells are exactly what its `.qmd` converts to."""
    problems = []
    names = notebook_chapters(root)
    for name in names:
        qmd = qmd_module.parse(root / "chapters" / f"{name}.qmd")
        for edition in qmd_module.EDITIONS:
            path = notebook_path(root, name, edition)
            relative = path.relative_to(root)
            command = f"{REGENERATE} {name}"
            if not path.exists():
                problems.append(
                    f"{relative} is missing for chapters/{name}.qmd: "
                    f"run `{command}`"
                )
                continue
            expected = qmd_module.cell_signature(
                qmd_module.to_notebook(qmd, edition)
            )
            actual = qmd_module.cell_signature(nbformat.read(path, 4))
            if expected != actual:
                first = next(
                    (
                        i
                        for i, (a, b) in enumerate(
                            zip(expected, actual, strict=False)
                        )
                        if a != b
                    ),
                    min(len(expected), len(actual)),
                )
                problems.append(
                    f"{relative} is out of date with chapters/{name}.qmd "
                    f"(cells differ from cell {first} on): run `{command}`"
                )
    for edition in qmd_module.EDITIONS:
        folder = notebook_path(root, "x", edition).parent
        for path in sorted(folder.glob("*.ipynb")):
            if path.stem not in names:
                problems.append(
                    f"{path.relative_to(root)} has no chapter "
                    f"chapters/{path.stem}.qmd: delete it"
                )
    return problems


def check_prose_numbers(root: Path) -> list[str]:
    """Numbers the prose quotes appear in the output of the cell named.

    A chapter lists them in its front matter:

        prose-numbers:
          - {text: "[1.5, 0.1]", cell: residual-sum}

    `text` must occur in the chapter's prose, and its numbers, in order,
    in the recorded output of the code cell labelled `cell`. nbval checks
    that the recorded output is what the code prints today, so prose, code
    and output cannot drift apart.
    """
    problems = []
    for name in notebook_chapters(root):
        relative = f"chapters/{name}.qmd"
        qmd = qmd_module.parse(root / relative)
        claims = qmd.metadata.get("prose-numbers", []) or []
        prose = _thousands(qmd.prose())
        notebook = nbformat.read(notebook_path(root, name, "instructor"), 4)
        outputs = _labelled_outputs(notebook)
        for claim in claims:
            text, cell = str(claim.get("text")), str(claim.get("cell"))
            if _thousands(text) not in prose:
                problems.append(
                    f"{relative}: prose-numbers lists '{text}', which the "
                    "prose does not contain"
                )
            if cell not in outputs:
                problems.append(
                    f"{relative}: prose-numbers names cell '{cell}', but no "
                    "code cell has that label"
                )
                continue
            wanted = _numbers(text)
            printed = _numbers(outputs[cell])
            if not wanted or not _contains(printed, wanted):
                problems.append(
                    f"{relative}: the prose says '{text}', but cell '{cell}' "
                    f"prints {outputs[cell].strip()[:200]!r}"
                )
    return problems


def _thousands(text: str) -> str:
    """'3,280' and '3280' mean the same number."""
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)


def _numbers(text: str) -> list[float]:
    numbers = re.findall(
        r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?", _thousands(text)
    )
    return [float(number) for number in numbers]


def _contains(haystack: list[float], needle: list[float]) -> bool:
    size = len(needle)
    return any(
        haystack[start : start + size] == needle
        for start in range(len(haystack) - size + 1)
    )


def _labelled_outputs(notebook) -> dict[str, str]:
    found = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        label = qmd_module.cell_options(cell.source).get("label")
        if not label:
            continue
        texts = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                texts.append(output.get("text", ""))
            elif "text/plain" in output.get("data", {}):
                texts.append(output["data"]["text/plain"])
        found[str(label)] = "".join(texts)
    return found


def check_clean_outputs(root: Path) -> list[str]:
    """No notebook records an error, a warning or other stderr output."""
    problems = []
    for name in notebook_chapters(root):
        for edition in qmd_module.EDITIONS:
            path = notebook_path(root, name, edition)
            if not path.exists():
                continue
            notebook = nbformat.read(path, 4)
            for number, cell in enumerate(notebook.cells):
                for output in cell.get("outputs", []):
                    kind = output.get("output_type")
                    stderr = output.get("name") == "stderr"
                    if kind == "error" or stderr:
                        text = output.get("text") or output.get("evalue", "")
                        what = "an error" if kind == "error" else "stderr"
                        problems.append(
                            f"{path.relative_to(root)}: cell {number} "
                            f"recorded {what}: {text.strip()[:160]}"
                        )
    return problems


def check_figure_outputs(root: Path) -> list[str]:
    """Images come only from labelled figure cells; SVG is never output."""
    problems = []
    for name in notebook_chapters(root):
        path = notebook_path(root, name, "instructor")
        if not path.exists():
            continue
        for cell in nbformat.read(path, 4).cells:
            label = str(qmd_module.cell_options(cell.source).get("label", ""))
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "image/svg+xml" in data:
                    problems.append(
                        f"chapters/{name}.qmd: cell '{label}' outputs SVG, "
                        "whose random ids break nbval; draw PNG figures"
                    )
                if "image/png" in data and not label.startswith("fig-"):
                    problems.append(
                        f"chapters/{name}.qmd: a cell draws a figure without "
                        "a '#| label: fig-...' (so it has no number, caption "
                        "or alt text)"
                    )
    return problems


def check_exported_figures(root: Path) -> list[str]:
    """Every fig- label has a 300-dpi PNG, an SVG and an index entry."""
    problems = []
    parsed, _ = parsed_book(root)
    index_path = root / "figures" / "README.md"
    index = (
        index_path.read_text(encoding="utf-8") if index_path.exists() else ""
    )
    for relative, qmd in parsed.items():
        for chunk in qmd.chunks():
            label = str(chunk.options.get("label", ""))
            if label.startswith("fig-"):
                problems += exported_figure_problems(root, relative, label)
                if f"| {figure_export.index_files(label)} |" not in index:
                    problems.append(
                        f"{relative}: figure '{label}' has no entry in "
                        f"figures/README.md: run `{REGENERATE}`"
                    )
    return problems


def exported_figure_problems(root: Path, relative, label: str) -> list[str]:
    """What is missing or wrong in one figure's exported files."""
    problems = []
    for suffix in figure_export.FORMATS:
        path = root / "figures" / f"{label}.{suffix}"
        if not path.exists():
            problems.append(
                f"{relative}: figure '{label}' has no exported "
                f"figures/{label}.{suffix}: run `{REGENERATE}`"
            )
        elif suffix == "png":
            dpi = figure_export.png_dpi(path)
            if dpi is None or round(dpi) < figure_export.EXPORT_DPI:
                problems.append(
                    f"{relative}: figures/{label}.png is not a "
                    f"{figure_export.EXPORT_DPI}-dpi export: run "
                    f"`{REGENERATE}`"
                )
    return problems


EXERCISE = re.compile(r"\{#(exr-[\w-]*\w)")


def check_solutions_guarded(root: Path) -> list[str]:
    """Solutions sit only inside instructor-only divs.

    A `.solution` div, or code defining a `solution_...` name, outside a
    `::: {.content-visible when-profile="instructor"}` div would reach the
    student website and notebooks.
    """
    parsed, problems = parsed_book(root)
    for relative, qmd in parsed.items():
        for part in qmd.parts:
            if part[0] == "code":
                chunk = part[1]
                if chunk.solution:
                    continue
                if re.search(
                    r"^(def|class)\s+solution_|^solution_\w*\s*=",
                    chunk.source,
                    re.M,
                ):
                    problems.append(
                        f"{relative}:{chunk.line}: code defining a "
                        "solution_... name is outside an instructor-only div"
                    )
            elif not part[3] and re.search(
                r"^:{3,}\s*\{[^}]*\.solution",
                _prose_without_code(part[1]),
                re.M,
            ):
                problems.append(
                    f"{relative}:{part[2]}: a .solution div is outside an "
                    "instructor-only div, so students would see it"
                )
    return problems


def check_every_exercise_has_a_solution(root: Path) -> list[str]:
    """Each `#exr-` block is followed by an instructor-only solution."""
    parsed, problems = parsed_book(root)
    for relative, qmd in parsed.items():
        pending = None
        for part in qmd.parts:
            solution = part[1].solution if part[0] == "code" else part[3]
            if solution:
                pending = None
                continue
            if part[0] != "markdown":
                continue
            for match in EXERCISE.finditer(part[1]):
                if pending:
                    problems.append(
                        f"{relative}: exercise {pending} has no worked "
                        "solution before the next exercise"
                    )
                pending = match.group(1)
        if pending:
            problems.append(
                f"{relative}: exercise {pending} has no worked solution"
            )
    return problems


def check_editions_agree(root: Path) -> list[str]:
    """The student notebook is the instructor notebook minus solutions.

    Cell by cell, with the same recorded outputs: so nbval's re-execution of
    the instructor notebook also pins every output of the student one, and
    a solution cell that changes what later cells print (by drawing random
    numbers, say) is caught.
    """
    problems = []
    for name in notebook_chapters(root):
        qmd = qmd_module.parse(root / "chapters" / f"{name}.qmd")
        paths = {e: notebook_path(root, name, e) for e in qmd_module.EDITIONS}
        if not all(path.exists() for path in paths.values()):
            continue
        student = nbformat.read(paths["student"], 4).cells
        instructor = nbformat.read(paths["instructor"], 4).cells
        # Which cells are solutions is known from the chapter by position,
        # not recognised by text (a `:::` line can be in either).
        flags = [solution for _, solution in qmd_module.edition_cells(qmd)]
        relative = paths["student"].relative_to(root)
        if len(flags) != len(instructor):
            continue  # a stale notebook: check_notebooks_in_sync says so
        public = [
            cell
            for cell, solution in zip(instructor, flags, strict=True)
            if not solution
        ]
        if len(public) != len(student):
            problems.append(
                f"{relative}: has {len(student)} cells, but the instructor "
                f"edition without solutions has {len(public)}: run "
                f"`{REGENERATE} {name}`"
            )
            continue
        for number, (mine, theirs) in enumerate(
            zip(student, public, strict=True)
        ):
            # Outputs nbval ignores (timings) differ from run to run.
            volatile = "# NBVAL_IGNORE_OUTPUT" in mine.source
            if mine.source != theirs.source or (
                not volatile and _outputs(mine) != _outputs(theirs)
            ):
                problems.append(
                    f"{relative}: cell {number} differs from the instructor "
                    f"edition's, in its source or recorded output. Run "
                    f"`{REGENERATE} {name}`; if it still differs, a "
                    "solution cell changes what later cells print (seed "
                    "random draws in the cell that uses them)"
                )
                break
    return problems


def _outputs(cell) -> list:
    """A cell's outputs without execution counts, which editions shift."""
    found = []
    for output in cell.get("outputs", []):
        output = dict(output)
        output.pop("execution_count", None)
        found.append(json.dumps(output, sort_keys=True))
    return found


def check_headings(root: Path) -> list[str]:
    """Headings go down one level at a time, so screen readers can follow.

    A page's first heading is level one (the chapter title); after that a
    heading may be at most one level deeper than the one before it.
    """
    parsed, problems = parsed_book(root)
    for relative, qmd in parsed.items():
        if Path(relative).name.startswith("_"):
            continue  # partials sit under a chapter's own headings
        previous = 0
        for part in qmd.parts:
            if part[0] != "markdown":
                continue
            text = _prose_without_code(part[1])
            for offset, line in enumerate(text.split("\n")):
                match = re.match(r"(#{1,6}) \S", line)
                if not match:
                    continue
                level = len(match.group(1))
                # Exercise and callout titles are headings inside divs.
                if level > previous + 1 and not _inside_div(part[1], offset):
                    problems.append(
                        f"{relative}:{part[2] + offset}: heading level "
                        f"{level} follows level {previous}"
                    )
                if not _inside_div(part[1], offset):
                    previous = level
    return problems


def _inside_div(text: str, line_number: int) -> bool:
    """Whether a line sits inside a fenced div opened in the same text."""
    depth = 0
    for line in text.split("\n")[:line_number]:
        if re.match(r"^:{3,}\s*\S", line):
            depth += 1
        elif re.match(r"^:{3,}\s*$", line):
            depth = max(depth - 1, 0)
    return depth > 0


SENTENCE_BREAK = re.compile(r"[a-z0-9)\]*_](?<!e\.g)(?<!i\.e)[.?!] +[A-Z(]")


def check_one_sentence_per_line(root: Path) -> list[str]:
    """Prose has one sentence per line, so diffs show what changed."""
    parsed, problems = parsed_book(root)
    for relative, first, text in _prose(parsed):
        for offset, line in enumerate(text.split("\n")):
            if line.lstrip().startswith("|"):
                continue  # table rows
            body = re.sub(r"^\s*(\d+\.|[-*:])\s+", "", line)
            if SENTENCE_BREAK.search(body):
                problems.append(
                    f"{relative}:{first + offset}: more than one "
                    "sentence on a line; start each on its own line"
                )
    return problems


CHECKS = [
    check_quarto_files,
    check_fences,
    check_crossrefs,
    check_citations,
    check_figure_cells,
    check_headings,
    check_one_sentence_per_line,
    check_ruff,
    check_notebooks_in_sync,
    check_prose_numbers,
    check_clean_outputs,
    check_figure_outputs,
    check_exported_figures,
    check_solutions_guarded,
    check_every_exercise_has_a_solution,
    check_editions_agree,
]


def all_checks() -> list:
    """CHECKS, and the checks of what learners receive (tools/nbcheck.py)."""
    import nbcheck

    return CHECKS + nbcheck.CHECKS


def main() -> int:
    failed = 0
    for check in all_checks():
        problems = check(ROOT)
        status = "ok" if not problems else f"{len(problems)} problem(s)"
        print(f"{check.__name__}: {status}")
        for problem in problems:
            print(f"  {problem}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
