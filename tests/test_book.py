"""Every check of tools/check/all.py passes on the book as it stands."""

import pytest
from conftest import ROOT

from tools.check import all as bookcheck
from tools.source import book as bookfiles


@pytest.mark.parametrize(
    "check",
    bookcheck.all_checks(),
    ids=[c.__name__ for c in bookcheck.all_checks()],
)
def test_book_passes(check):
    problems = check(ROOT)
    assert not problems, "\n".join(problems)


def test_book_has_the_four_levels_in_order():
    files = [name for name, _ in bookfiles.book_parts(ROOT)]
    levels = [
        "chapters/intuition.qmd",
        "chapters/mechanics.qmd",
        "chapters/maths-and-code.qmd",
        "chapters/systems.qmd",
    ]
    assert files[0] == "index.qmd"
    assert [f for f in files if f in levels] == levels
    assert files.index("chapters/references.qmd") > files.index(levels[-1])


def test_bibliography_has_the_founding_papers_with_identifiers():
    text = (ROOT / "references.bib").read_text(encoding="utf-8")
    for key, identifier in [
        ("vaswani2017attention", "1706.03762"),
        ("ba2016layer", "1607.06450"),
        ("xiong2020layer", "2002.04745"),
    ]:
        assert f"{{{key}," in text, f"references.bib: no {key}"
        entry = text.split(f"{{{key},", 1)[1].split("\n}", 1)[0]
        assert identifier in entry, f"references.bib: {key} lacks its id"
