"""The training chapter trains the maths-and-code chapter's own block.

Each chapter is self-contained, so the training chapter copies the block's
definitions; this test keeps the copy identical to the original, so that
what the training chapter reports is about the block the book builds.
"""

import ast

import pytest
from conftest import ROOT

from tools.source import qmd

# The definitions the training chapter copies, by name.
COPIED = ("BlockConfig", "causal_mask", "PreNormBlock", "PostNormBlock")
ORIGINAL = (ROOT / "chapters" / "maths-and-code.qmd").read_text("utf-8")
COPY = (ROOT / "chapters" / "training.qmd").read_text("utf-8")
LINE = "        H = X + self.drop(A)  # (B, S, D)"
FIELD = "    heads: int = 2\n"


def definitions(path) -> dict[str, str]:
    """Each top-level class and function of a chapter's code, decorators
    included, as its syntax tree (comments aside), by name."""
    found = {}
    for chunk in qmd.parse(path).chunks():
        code = "\n".join(x for x in chunk.lines if not x.startswith("#|"))
        for node in ast.parse(code).body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef):
                found[node.name] = ast.dump(node)
    return found


@pytest.mark.parametrize(
    "original, copy, differing",
    [
        (ORIGINAL, COPY, []),
        # An edit to either copy is caught.
        (
            ORIGINAL.replace(LINE, LINE.replace("X + ", "X + 0.5 * ")),
            COPY,
            ["PreNormBlock"],
        ),
        (
            ORIGINAL,
            COPY.replace(FIELD, FIELD.replace("2", "4")),
            ["BlockConfig"],
        ),
    ],
    ids=["the book", "edited original", "edited copy"],
)
def test_training_copies_the_block_verbatim(
    tmp_path, original, copy, differing
):
    assert LINE in ORIGINAL and LINE in COPY and FIELD in COPY
    (tmp_path / "original.qmd").write_text(original, encoding="utf-8")
    (tmp_path / "copy.qmd").write_text(copy, encoding="utf-8")
    ours = definitions(tmp_path / "original.qmd")
    theirs = definitions(tmp_path / "copy.qmd")
    assert set(COPIED) <= set(ours), "maths-and-code: a definition is gone"
    found = [name for name in COPIED if ours[name] != theirs.get(name)]
    assert found == differing, (
        "chapters/training.qmd: these definitions differ from "
        f"chapters/maths-and-code.qmd; copy them again, verbatim: {found}"
    )
