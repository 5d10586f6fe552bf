"""The training chapter trains the maths-and-code chapter's own block.

Each chapter is self-contained, so the training chapter copies the block's
definitions; this test keeps the copy identical to the original, so that
what the training chapter reports is about the block the book builds.
"""

import ast

from conftest import ROOT

from tools.source import qmd

# The definitions the training chapter copies, by name.
COPIED = ("BlockConfig", "causal_mask", "PreNormBlock", "PostNormBlock")


def definitions(path) -> dict[str, str]:
    """The source of every top-level class and function in a chapter's code,
    by name, from whichever cell defines it."""
    found = {}
    for chunk in qmd.parse(path).chunks():
        code = "\n".join(
            line for line in chunk.lines if not line.startswith("#|")
        )
        for node in ast.parse(code).body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                found[node.name] = ast.get_source_segment(code, node)
                if node.decorator_list:  # @dataclass belongs to the class
                    first = node.decorator_list[0].lineno - 1
                    lines = code.split("\n")[first : node.end_lineno]
                    found[node.name] = "\n".join(lines)
    return found


def differing(original, copy) -> list[str]:
    ours, theirs = definitions(original), definitions(copy)
    return [name for name in COPIED if ours.get(name) != theirs.get(name)]


ORIGINAL = ROOT / "chapters" / "maths-and-code.qmd"
COPY = ROOT / "chapters" / "training.qmd"


def test_training_copies_the_block_verbatim():
    original, copy = ORIGINAL, COPY
    for name in COPIED:
        assert name in definitions(original), f"maths-and-code: no {name}"
    assert differing(original, copy) == [], (
        "chapters/training.qmd: these definitions differ from "
        "chapters/maths-and-code.qmd; copy them again, verbatim: "
        f"{differing(original, copy)}"
    )


def test_an_edit_to_either_copy_is_caught(tmp_path):
    original = ORIGINAL.read_text(encoding="utf-8")
    copy = COPY.read_text(encoding="utf-8")
    line = "        H = X + self.drop(A)  # (B, S, D)"
    assert line in original and line in copy
    edited = line.replace("X + ", "X + 0.5 * ")
    field = "    heads: int = 2\n"

    def written(name: str, text: str):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    changed = written("original.qmd", original.replace(line, edited))
    assert differing(changed, COPY) == ["PreNormBlock"]
    changed = written("copy.qmd", copy.replace(line, edited))
    assert differing(ORIGINAL, changed) == ["PreNormBlock"]
    changed = written("field.qmd", copy.replace(field, "    heads: int = 4\n"))
    assert differing(ORIGINAL, changed) == ["BlockConfig"]
