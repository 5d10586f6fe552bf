"""The chapters' {ojs} cells stay where Quarto counts them, website only.

The rest of the website's configuration (offline maths, fonts, explorers,
both themes, the PDF link) is proved on a real render: tests/test_render.py
and the site check (tools/sitecheck: links, other hosts, axe in both
schemes, figures in the dark scheme).
"""

import re

import pytest
from conftest import ROOT

WEBSITE_DIV = re.compile(
    r'^::: \{\.content-visible when-format="html"\}\n(.*?)^:::$', re.M | re.S
)
OJS_CELL = re.compile(r"^```\{ojs\}\n(.*?)^```$", re.M | re.S)


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "chapters").glob("*.qmd")) + [ROOT / "index.qmd"],
    ids=lambda path: path.name,
)
def test_ojs_cells_are_in_the_page_and_website_only(path):
    """Quarto counts a page's {ojs} blocks in the page's own file.

    A block that arrives through {{< include >}} makes it warn "OJS block
    count mismatch" (and tools/render.sh fail); a block outside a
    when-format="html" div would reach the PDF and the notebooks.
    """
    text = path.read_text(encoding="utf-8")
    for name in re.findall(r"\{\{< include ([^ ]+) >\}\}", text):
        included = (path.parent / name).read_text(encoding="utf-8")
        assert "```{ojs}" not in included, (
            f"{path.name} includes {name}, which has {{ojs}} cells: Quarto "
            "miscounts them; put the cells in the chapter itself"
        )
    inside = sum(
        len(OJS_CELL.findall(div)) for div in WEBSITE_DIV.findall(text)
    )
    assert inside == len(OJS_CELL.findall(text)), (
        f"{path.name}: an {{ojs}} cell outside a "
        '::: {.content-visible when-format="html"} div'
    )
