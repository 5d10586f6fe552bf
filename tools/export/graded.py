"""The graded exercises of a chapter, read from its .qmd, as otter-grader
test cells: a graded exercise's kind line gives its points, its starter cell
ends with the public self-check, its solution and hidden tests are
instructor-only (STYLE.md, "Exercises and solutions"). Otter reads only
its own master-notebook format, which tools/assignments.py writes.
"""

from __future__ import annotations

import builtins
import re
import symtable
import textwrap
from dataclasses import dataclass, field
from itertools import dropwhile
from pathlib import Path

import nbformat

from tools.source import qmd
from tools.source.book import ROOT

POINTS = re.compile(
    r"::: \{#(exr-[\w-]+)\}\n## (.*)\n\*(\w+) · (\d+) min · (\d+) points?\*"
)
CHECK_CALL = re.compile(r"^(check_\w+)\((\w+)\)\s*$")
# An explain exercise, graded by hand, as the notebook titles it; the
# answer cell the assignment adds after it.
EXPLAIN = re.compile(r"^\*\*Exercise ([\d.]+)\*\* .* · \*Explain · ")
ANSWER = "**Your answer to Exercise {number}** (graded by hand):"


@dataclass
class Question:
    name: str
    exercise: str
    points: int
    starter: str = ""
    check: str = ""
    answer: str = ""
    solution: str = ""
    helpers: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    # The chapter's public cells the check (and the hidden tests' env[...]
    # names) need, in order: the bundle's tests run this code themselves,
    # so nothing a learner redefines in the notebook reaches them.
    check_code: str = ""


def cell_label(cell) -> str:
    return str(qmd.cell_options(cell.source).get("label", ""))


def code_of(source: str) -> str:
    lines = dropwhile(lambda line: line.startswith("#|"), source.split("\n"))
    return "\n".join(lines).strip("\n")


def questions(parsed: qmd.Qmd) -> list[Question]:
    prose = parsed.prose("instructor")
    graded = {
        label.removeprefix("exr-"): int(points)
        for label, _, _, _, points in POINTS.findall(prose)
    }
    found: dict[str, Question] = {}
    starts: dict[str, int] = {}
    public: list[qmd.Chunk] = []  # the code cells learners get
    exercise = ""  # the last to open, read from the chapter's own text
    for part in parsed.parts:
        if part[0] == "markdown":
            opened = re.findall(r"::: \{#exr-([\w-]+)\}", part[1])
            exercise = opened[-1] if opened else exercise
            continue
        chunk = part[1]
        public += [] if chunk.solution else [chunk]
        label = str(chunk.options.get("label", ""))
        kind, _, name = label.partition("-")
        code = code_of(chunk.source)
        call = CHECK_CALL.match(code.split("\n")[-1])
        if kind == "starter" and exercise in graded:
            if not call:
                raise ValueError(
                    f"{parsed.path}: {label} must end with check_...(my_...)"
                )
            starts[name] = len(public) - 1
            found[name] = Question(
                name, exercise, graded[exercise], code, call[1], call[2]
            )
        elif kind == "solution" and name in found:
            if call and call[1] == found[name].check:
                found[name].solution = code
        elif kind == "solution":
            # A helper the solution needs (`solution-zero-branch-helper`),
            # in a cell of its own before it: the solutions notebook
            # holds it too, or the reference answer fails there.
            owner = next(
                (q for q in found.values() if name.startswith(f"{q.name}-")),
                None,
            )
            if owner is not None and not owner.solution:
                owner.helpers.append(code)
        elif kind == "hidden":
            owner = next(
                (q for q in found.values() if name.startswith(q.name)), None
            )
            if owner is None:
                raise ValueError(
                    f"{parsed.path}: {label} follows no graded starter cell"
                )
            owner.hidden.append(test_function(code))
    for question in found.values():
        if not question.solution or not question.hidden:
            raise ValueError(
                f"{parsed.path}: graded question {question.name} needs a "
                f"solution-{question.name} cell ending with "
                f"{question.check}(solution_...) and hidden-{question.name} "
                "tests"
            )
        before = [
            code_of(c.source)
            for c in public[: starts[question.name]]
            if not str(c.options.get("label", "")).startswith("starter-")
        ]
        wanted = {question.check} | {
            key
            for test in question.hidden
            for key in re.findall(r"env(?:\.get\(|\[)[\"'](\w+)", test)
        }
        question.check_code = needed_code(before, wanted - {question.answer})
    missing = set(graded) - {q.exercise for q in found.values()}
    if missing:
        raise ValueError(
            f"{parsed.path}: exercises with points but no starter cell: "
            f"{sorted(missing)}"
        )
    return list(found.values())


def bound_names(code: str) -> tuple[set[str], set[str]]:
    module = symtable.symtable(code, "<cell>", "exec")
    binds = {s.get_name() for s in module.get_symbols() if s.is_assigned()}
    binds |= {s.get_name() for s in module.get_symbols() if s.is_imported()}
    reads, tables = set(), [module]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        reads |= {
            s.get_name()
            for s in table.get_symbols()
            if s.is_referenced() and (table is module or s.is_global())
        }
    return binds, reads


def needed_code(cells: list[str], wanted: set[str]) -> str:
    """The code of the cells that bind a wanted name, and of those that
    bind what they read (every binding: a cell may rebind a name)."""
    kept, wanted = [], set(wanted)
    for code in reversed(cells):
        binds, reads = bound_names(code)
        if binds & wanted:
            kept.append(code)
            wanted |= reads - set(dir(builtins))
    return "\n\n\n".join(reversed(kept))


def test_function(code: str) -> str:
    blocks = re.split(r"\n(?=\S)", code)
    defs = [block for block in blocks if block.startswith("def test_")]
    if len(defs) != 1:
        raise ValueError(
            f"a hidden test chunk needs one def test_...:\n{code}"
        )
    return defs[0].rstrip()


# Every test starts so: it runs the chapter's own code for the check
# (Question.check_code), never a check_... of the notebook, which a learner
# can redefine, and the public check: a hidden test gives no point to an
# answer the public one rejects.
PUBLIC_CHECK = """    import contextlib
    import io

    import torch

    chapter, said = {{"__name__": "chapter"}}, io.StringIO()
    answer = env.get("{answer}")
    with torch.random.fork_rng(devices=[]):
        with contextlib.redirect_stdout(io.StringIO()):
            exec({code!r}, chapter)
        with contextlib.redirect_stdout(said):
            passed = "{answer}" in env and chapter["{check}"](answer)
    assert "{answer}" in env, (
        "The notebook defines no {answer}; keep that name for your answer."
    )
    assert passed is True, said.getvalue().strip()
"""
PUBLIC_TEST = '''""" # BEGIN TEST CONFIG
points: 1
""" # END TEST CONFIG
def test_{slug}_public(env):
    """The chapter's self-check, run from the chapter's own code."""
{check}'''
HIDDEN_TEST = '''""" # BEGIN TEST CONFIG
hidden: true
points: {points:g}
""" # END TEST CONFIG
def {function}(env):
    """The public check, then the chapter's hidden test."""
{check}
{test}

    {function}({{**env, **chapter, "{answer}": answer}})
'''


def test_cells(question: Question) -> list[str]:
    check = PUBLIC_CHECK.format(
        answer=question.answer, code=question.check_code, check=question.check
    )
    slug = question.name.replace("-", "_")
    return [PUBLIC_TEST.format(slug=slug, check=check)] + [
        HIDDEN_TEST.format(
            points=(question.points - 1) / len(question.hidden),
            function=re.match(r"def (\w+)", test).group(1),
            check=check,
            test=textwrap.indent(test, "    "),
            answer=question.answer,
        )
        for test in question.hidden
    ]


def solution_cell(question: Question) -> str:
    starter = question.starter.split("\n")
    body = "\n".join(starter[:-1]).rstrip("\n")
    solution = question.solution.split("\n")
    reference = CHECK_CALL.match(solution[-1]).group(2)
    parts = [*question.helpers, "\n".join(solution[:-1]).rstrip("\n")]
    hidden = "\n\n\n".join(parts)
    return (
        f"{body}\n\n\n# BEGIN SOLUTION NO PROMPT\n{hidden}\n\n\n"
        f"{question.answer} = {reference}\n# END SOLUTION\n{starter[-1]}"
    )


def hand_answers(notebook: Path, folder: Path) -> list[str]:
    """The explain answers of a submission, copied to folder/answers.md;
    the exercise number of each answer cell of the assignment."""
    cells = nbformat.read(notebook, 4).cells
    marked = [c.source for c in cells if c.source.startswith(ANSWER[:22])]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answers.md").write_text("\n\n".join(marked), "utf-8")
    return [re.match(r"\S+ \S+ \S+ \S+ ([\d.]+)", m)[1] for m in marked]


def graded_chapters(root: Path = ROOT) -> list[str]:
    chapters = sorted((root / "chapters").glob("*.qmd"))
    return [p.stem for p in chapters if POINTS.search(p.read_text("utf-8"))]


def chapter_path(name: str) -> Path:
    return ROOT / "chapters" / f"{name}.qmd"
