"""The course appendix lists every exercise as the chapters state it."""

import re

import pytest
from conftest import ROOT

from tools.export import graded as graded_questions
from tools.source import book as bookfiles
from tools.source import qmd

COURSE = ROOT / "chapters" / "course.qmd"
EXERCISE = re.compile(
    r"::: \{#(exr-[\w-]+)\}\n## .*\n"
    r"\*(\w+) · (\d+) min(?: · (\d+) points)?\*",
    re.M,
)


def chapter_exercises():
    """Each exercise: (kind, time, points, whether self-checked)."""
    found = {}
    for name in bookfiles.notebook_chapters(ROOT):
        text = (ROOT / "chapters" / f"{name}.qmd").read_text("utf-8")
        for label, kind, minutes, points in EXERCISE.findall(text):
            after = text.split(f"{{#{label}}}", 1)[1].split("{#exr-", 1)[0]
            checked = "#| label: selfcheck-" in after
            found[label] = (kind.lower(), f"{minutes} min", points, checked)
    return found


def test_every_exercise_states_its_kind_and_time_as_the_course_lists_it():
    for name in bookfiles.notebook_chapters(ROOT):
        text = (ROOT / "chapters" / f"{name}.qmd").read_text("utf-8")
        blocks = re.findall(r"::: \{#(exr-[\w-]+)\}", text)
        stated = {label: kind for label, kind, *_ in EXERCISE.findall(text)}
        assert blocks == list(stated), (
            f"chapters/{name}.qmd: exercises without the '*Kind · N min*' "
            f"line: {sorted(set(blocks) - set(stated))}"
        )
        kinds = ("Compute", "Explain", "Implement", "Measure")
        assert set(stated.values()) <= set(kinds), f"chapters/{name}.qmd"
    rows = {}
    for line in COURSE.read_text("utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0].startswith("@exr-"):
            rows[cells[0][1:]] = (*cells[2:5], cells[5] == "yes")
    # (kind, time, points, self-check) of each, as the chapters say.
    assert rows == chapter_exercises(), "chapters/course.qmd"


def points_table():
    text = COURSE.read_text("utf-8").split("{#tbl-course-schedule}", 1)[1]
    table = text.split("{#tbl-course-points}", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 3 and cells[2].isdigit():
            rows[cells[0]] = (cells[1].split(", "), int(cells[2]))
    return rows


def test_points_table_matches_the_graded_questions():
    expected = {}
    for name in graded_questions.graded_chapters(ROOT):
        parsed = qmd.parse(ROOT / "chapters" / f"{name}.qmd")
        graded = graded_questions.questions(parsed)
        expected[name] = (
            [q.name for q in graded],
            sum(q.points for q in graded),
        )
    assert expected, "no graded exercises found in the chapters"
    assert points_table() == expected, (
        "chapters/course.qmd: the points table (tbl-course-points) differs "
        f"from the chapters' graded questions: {expected}"
    )


def test_schedule_covers_every_assignment_in_two_weeks():
    text = COURSE.read_text("utf-8")
    schedule = text.split("## A two-week schedule", 1)[1]
    schedule = schedule.split("{#tbl-course-schedule}", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in schedule.splitlines()
        if re.match(r"\| \d", line)
    ]
    assert {row[0] for row in rows} == {"1", "2"}
    handed = " ".join(row[4] for row in rows)
    for name in graded_questions.graded_chapters(ROOT):
        assert f"{name} handed out" in handed, name
        assert re.search(rf"{name}( and \S+)? due", handed), name
    for label in re.findall(r"@(exr-[\w-]+)", schedule):
        assert label in chapter_exercises(), f"schedule names {label}"


def test_grading_commands_are_the_tools_commands():
    text = COURSE.read_text("utf-8").split("{#sec-course-grading}", 1)[1]
    commands = re.findall(
        r"^\.venv/bin/python -m (tools\S+) (\w+)?", text, re.M
    )
    assert ("tools.assignments", "build") in commands
    assert ("tools.assignments", "grade") in commands
    source = (ROOT / "tools" / "assignments.py").read_text("utf-8")
    assert '"build", "grade"' in source


def quiz_key(parsed) -> dict[str, str]:
    instructor = parsed.prose("instructor").split("### Checkpoint quiz")[1]
    return dict(re.findall(r"^(\d)\. \(([a-d])\) ", instructor, re.M))


def test_the_website_quiz_accepts_the_instructor_key_alone():
    import hashlib

    partial = (ROOT / "chapters" / "_quiz-checkpoint.qmd").read_text("utf-8")
    site = r'data-question="(\d)" data-key="([0-9a-f]{64})"'
    hashes = dict(re.findall(site, partial))
    parsed = qmd.parse(ROOT / "chapters" / "maths-and-code.qmd")
    key = quiz_key(parsed)
    assert sorted(hashes) == sorted(key) == list("12345"), (hashes, key)
    quiz = parsed.prose("student").split("### Checkpoint quiz")[1]
    asked = re.findall(r"^\d+\. ", quiz.split(":::", 1)[0], re.M)
    assert len(asked) == 5, f"the quiz asks {len(asked)} questions"
    for question, digest in hashes.items():
        answer = f"checkpoint-{question}:{key[question]}".encode()
        assert hashlib.sha256(answer).hexdigest() == digest, question


def test_the_notebook_quiz_accepts_the_key_alone_and_says_why(capsys):
    """The notebook's check_quiz, run from its chunk (it needs no torch)."""
    parsed = qmd.parse(ROOT / "chapters" / "maths-and-code.qmd")
    chunk = next(
        c for c in parsed.chunks() if c.options.get("label") == "quiz-check"
    )
    namespace = {}
    exec(chunk.source, namespace)
    check = namespace["check_quiz"]
    key = quiz_key(parsed)
    assert sorted(key) == list("12345"), key
    for question, letter in key.items():
        assert [x for x in "abcd" if check(int(question), x)] == [letter]
    assert check("4", key["4"])  # a number typed as text
    assert not check(6, "a")
    assert set(capsys.readouterr().out.split("\n")) == {
        "Right.",
        "Not this one; reread the section and try again.",
        "There is no question 6; the questions are 1, 2, 3, 4, 5.",
        "",
    }


OBJECTIVES = '::: {.callout-tip title="Learning objectives"}'
ENDING = ["Common misconceptions", "Summary", "Exercises"]


def structure_problems(text: str) -> list[str]:
    """A chapter opens with 3 to 5 observable learning objectives right
    after its heading, and ends with misconceptions, summary, exercises."""
    headings = re.findall(r"^## (.+?)(?: \{.*\})?$", text, re.M)
    problems = []
    if [h for h in headings if h in ENDING] != ENDING:
        problems.append(f"ends with {headings[-3:]}")
    after = text.split("\n# ", 1)[1].split("\n", 1)[1].lstrip("\n")
    if not after.startswith(OBJECTIVES):
        return [*problems, "no learning objectives right after the heading"]
    items = re.findall(r"^- (\w+)", after.split("\n:::", 1)[0], re.M)
    if not 3 <= len(items) <= 5:
        problems.append(f"{len(items)} objectives, not 3 to 5")
    # Observable skills start with a verb a learner can be seen doing.
    vague = [verb for verb in items if verb in ("Understand", "Know", "Learn")]
    if vague:
        problems.append(f"objectives that cannot be observed: {vague}")
    return problems


@pytest.mark.parametrize(
    "name, old, new, said",
    [(n, "", "", "") for n in bookfiles.notebook_chapters(ROOT)]
    + [  # planted in a copy: each is found
        ("mechanics", "- Write the two", "- Understand the two", "observed"),
        ("mechanics", OBJECTIVES, "::: {.callout-note}", "no learning"),
        ("mechanics", "## Summary", "## In short", "ends with"),
    ],
)
def test_chapters_open_with_objectives_and_end_with_exercises(
    name, old, new, said
):
    text = (ROOT / "chapters" / f"{name}.qmd").read_text("utf-8")
    assert old in text
    problems = structure_problems(text.replace(old, new, 1) if old else text)
    if said:
        assert [p for p in problems if said in p], problems
    else:
        assert not problems, f"chapters/{name}.qmd: {problems}"
