"""tools/render_timing.py: the edits it times are the ones it names."""

import qmd
import render_timing
from conftest import ROOT


def chunks_of(text, folder):
    """The code chunks of a chapter's text, as tools/qmd.py reads them."""
    path = folder / "chapter.qmd"
    path.write_text(text, "utf-8")
    parsed = qmd.parse(path)
    return [part[1] for part in parsed.parts if part[0] == "code"]


def code_of(text, folder):
    return [chunk.lines for chunk in chunks_of(text, folder)]


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


def test_a_code_edit_keeps_the_cells_options(tmp_path):
    """The edited cell keeps its label and folding: only its code grows."""
    for chapter in render_timing.chapters_with_code(ROOT):
        text = (ROOT / chapter).read_text("utf-8")
        before = chunks_of(text, tmp_path)
        after = chunks_of(render_timing.code_edit(text, "x"), tmp_path)
        assert before[0].options, chapter  # the style cell: it has some
        assert after[0].options == before[0].options, chapter
        assert after[0].lines[-1] == before[0].lines[-1], chapter


def test_several_rounds_report_their_median_and_range(monkeypatch):
    """The machine's times vary: more than one round shows by how much,
    and how fast the machine was (the probe) when each step began."""
    rounds = iter(
        [{"cold": (3.0, 0.3)}, {"cold": (1.0, 0.2)}, {"cold": (2.0, 0.25)}]
    )
    monkeypatch.setattr(render_timing.shutil, "which", lambda _: "quarto")
    monkeypatch.setattr(render_timing, "one_round", lambda _: next(rounds))
    monkeypatch.setattr(render_timing, "labels", lambda _: {"cold": "cold"})
    lines = render_timing.report(3)
    assert lines[0] == "cold: 2.0 (1.0 to 3.0) s; probe 0.25 (0.20 to 0.30) s"
    assert lines[1].startswith("(probe: 3,000,000 additions in Python")
    monkeypatch.setattr(
        render_timing, "one_round", lambda _: {"cold": (4.0, 0.2)}
    )
    assert render_timing.report(1)[0] == "cold: 4.0 s; probe 0.20 s"


def test_the_probe_times_its_work(monkeypatch):
    """Less work, less time: the probe measures the loop, not a constant."""
    monkeypatch.setattr(render_timing, "PROBE_STEPS", 10)
    short = min(render_timing.probe() for _ in range(3))
    monkeypatch.setattr(render_timing, "PROBE_STEPS", 300_000)
    assert min(render_timing.probe() for _ in range(3)) > short


def test_a_render_returns_its_time_and_the_probe_before_it(
    monkeypatch, tmp_path
):
    events = []
    monkeypatch.setattr(
        render_timing, "probe", lambda: events.append("probe") or 0.5
    )

    def run(command, **options):
        events.append(command[-1])
        return render_timing.subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(render_timing.subprocess, "run", run)
    seconds, probe_seconds = render_timing.render(tmp_path, ["page.qmd"])
    assert events == ["probe", "page.qmd"]
    assert probe_seconds == 0.5 and seconds >= 0
