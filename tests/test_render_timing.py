"""tools/render_timing.py: the edits it times are the ones it names."""

import qmd
import render_timing
from conftest import ROOT


def code_of(text, folder):
    """The code chunks of a chapter's text, as tools/qmd.py reads them."""
    path = folder / "chapter.qmd"
    path.write_text(text, "utf-8")
    parsed = qmd.parse(path)
    return [part[1].lines for part in parsed.parts if part[0] == "code"]


def test_a_code_edit_changes_code_and_a_prose_edit_only_prose(tmp_path):
    text = (ROOT / render_timing.FIRST).read_text("utf-8")
    before = code_of(text, tmp_path)
    after_code = code_of(render_timing.code_edit(text, "x"), tmp_path)
    assert after_code != before  # so Jupyter's cache misses: it executes
    assert len(after_code) == len(before)
    after_prose = code_of(render_timing.prose_edit(text, "x"), tmp_path)
    assert after_prose == before


def test_every_chapter_with_code_is_timed(tmp_path):
    chapters = render_timing.chapters_with_code(ROOT)
    assert render_timing.FIRST in chapters
    for chapter in chapters:
        text = (ROOT / chapter).read_text("utf-8")
        assert code_of(text, tmp_path), chapter
    assert "chapters/course.qmd" not in chapters  # prose only
