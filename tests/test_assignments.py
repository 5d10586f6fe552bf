"""The graded assignments: built by otter assign, graded by otter's tests.

Planted wrong answers run through the autograder's own test files (public
and hidden) in this process, against the chapter's namespace: each loses
every point of its question, and the public test fails with the intended
sentence. tests/test_grading.py runs `otter run` itself on whole notebooks.
"""

import functools
import tempfile
from pathlib import Path

import leaks
import nbformat
import pytest
from conftest import DEMONSTRATIONS, ROOT, LazyModule, copy_book

import assignments

torch = LazyModule("torch")
# Runs chapters, so imports torch and matplotlib (see
# conftest.pytest_xdist_make_scheduler).
pytestmark = pytest.mark.heavy_imports

GRADED = assignments.graded_chapters()


@functools.cache
def bundle(name: str):
    """The student notebook and autograder test files of a chapter."""
    scratch = Path(tempfile.mkdtemp(prefix=f"otter-{name}-"))
    return assignments.bundle(name, scratch)


def grade(name: str, question: str, env: dict):
    """Run one question's autograder tests: (score, points, messages)."""
    from otter.test_files import ExceptionTestFile

    _, tests = bundle(name)
    test_file = ExceptionTestFile.from_string(tests[question])
    test_file.run(env)
    messages = [r.message for r in test_file.test_case_results]
    return test_file.score, test_file.possible, messages


def public_message(messages) -> str:
    """The public test's failure: the self-check's one sentence."""
    return messages[0].strip().split("\n")[-1]


def test_graded_chapters_are_the_three_with_code_exercises():
    assert GRADED == ["maths-and-code", "mechanics", "systems"]


@pytest.mark.parametrize("name", GRADED)
def test_student_assignment_is_what_otter_assign_writes(name):
    committed = nbformat.read(ROOT / "assignments" / f"{name}.ipynb", 4)
    student, _ = bundle(name)
    built = [(c.cell_type, c.source) for c in student.cells]
    assert [(c.cell_type, c.source) for c in committed.cells] == built, (
        f"assignments/{name}.ipynb is stale: run "
        f".venv/bin/python tools/regenerate.py {name}"
    )


@pytest.mark.parametrize("name", GRADED)
def test_hidden_tests_stay_in_the_autograder(name):
    student, tests = bundle(name)
    text = nbformat.writes(student)
    for question, source in tests.items():
        assert "hidden=True" in source, f"{question} has no hidden test"
        assert "hidden=False" in source, f"{question} has no public test"
        hidden = source.split("hidden=True", 1)[1]
        name_line = next(
            line for line in hidden.split("\n") if line.startswith("def ")
        )
        assert name_line not in text, f"{question}: hidden test leaked"


@pytest.mark.parametrize("name", GRADED)
def test_solutions_score_full_and_starters_zero(name, chapter):
    ns = chapter(name, skip=DEMONSTRATIONS[name])
    for question in assignments.questions(
        assignments.qmd.parse(ROOT / "chapters" / f"{name}.qmd")
    ):
        starter = grade(name, question.name, dict(ns))
        assert starter[0] == 0, f"{question.name}: starter scored {starter}"
        assert question.points == starter[1]
        reference = question.solution.split("\n")[-1].split("(")[1][:-1]
        solved = grade(
            name, question.name, {**ns, question.answer: ns[reference]}
        )
        assert solved[0] == solved[1], f"{question.name}: {solved[2]}"


def mechanics_plants(ns):
    """Wrong answers by question: [(answer, words of the public message)]."""
    plants = {}

    def linear_ffn(sequence, W1, W2):
        return sequence @ W1.T @ W2.T

    example = ns["solution_gelu_ffn"](ns["sequence"], ns["W1"], ns["W2"])
    plants["gelu-ffn"] = [
        (ns["relu_ffn"], "still uses ReLU"),
        (linear_ffn, "applies no activation"),
        (lambda s, w1, w2: example.clone(), "first input's result"),
    ]
    return plants


def maths_plants(ns):
    nn = torch.nn
    PreNorm, PostNorm = ns["PreNormBlock"], ns["PostNormBlock"]
    Solution = ns["SolutionBlock"]

    class Unmasked(Solution):
        def attention(self, Z):
            B, S, D = Z.shape
            Q, K, V = (self.heads(f(Z)) for f in (self.q, self.k, self.v))
            scores = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
            joined = (scores.softmax(dim=-1) @ V).transpose(1, 2)
            return self.out(joined.reshape(B, S, D))

    class OneHead(Solution):
        def heads(self, T):
            return T[:, None]  # (B, 1, S, D)

    class PostNormMine(Solution):
        def forward(self, X):
            H = self.norm_attn(X + self.attention(X))
            return self.norm_ffn(H + self.ffn(H))

    class UnmaskedPost(Unmasked):
        def forward(self, X):
            H = self.norm_attn(X + self.attention(X))
            return self.norm_ffn(H + self.ffn(H))

    class SwappedPost(Solution):
        def forward(self, X):
            H = self.norm_ffn(X + self.attention(X))
            return self.norm_attn(H + self.ffn(H))

    class ReluPost(PostNormMine):
        def __init__(self, config):
            super().__init__(config)
            self.ffn[1] = nn.ReLU()

    def right_padding(lengths, length):
        return torch.arange(length)[None, :] >= lengths[:, None]

    def inverted(lengths, length):
        return ~ns["solution_padding_mask"](lengths, length)

    def one_too_many(lengths, length):
        return torch.arange(length)[None, :] <= (length - lengths)[:, None]

    def width_six(block):
        X_test = torch.randn(2, 5, 6)
        quiet = ns["silenced"](block, ["attn.out_proj", "ffn.2"])
        with torch.no_grad():
            return torch.equal(quiet(X_test), X_test)

    def first_half_only(block):
        X_test = torch.randn(2, 5, block.config.width)
        quiet = ns["silenced"](block, ["attn.out_proj", "ffn.2"])
        with torch.no_grad():
            return torch.equal(quiet(X_test), X_test)

    def first_output_only(block):
        X_test = torch.randn(2, 6, block.config.width)
        X_changed = X_test.clone()
        X_changed[:, -1, 0] += 100.0
        with torch.no_grad():
            return torch.allclose(block(X_test)[:, 0], block(X_changed)[:, 0])

    def shifts_every_feature(block):
        X_test = torch.randn(2, 6, block.config.width)
        X_changed = X_test.clone()
        X_changed[:, -1] += 100.0  # layer norm removes it again
        with torch.no_grad():
            before, after = block(X_test)[:, :-1], block(X_changed)[:, :-1]
        return torch.allclose(before, after, atol=1e-6)

    def running_example_only(block):
        X_test = torch.randn(2, 4, block.config.width)
        with torch.no_grad():
            return block(X_test).shape == X_test.shape

    def no_single_token(block):
        for B, S in [(2, 4), (3, 7)]:
            X_test = torch.randn(B, S, block.config.width)
            with torch.no_grad():
                if block(X_test).shape != X_test.shape:
                    return False
        return True

    def piled_up(blocks, X, R):
        X_leaf, norms = X.clone().requires_grad_(True), []
        for depth in range(1, len(blocks) + 1):
            Y = X_leaf
            for block in blocks[:depth]:
                Y = block(Y)
            (Y * R).sum().backward()
            norms.append(float(X_leaf.grad.norm()))
        return norms

    def output_norms(blocks, X, R):
        return [float(Y.norm()) for Y in ns["outputs_by_depth"](blocks, X)]

    return {
        "post-norm": [
            (Solution, "computes pre-norm"),
            (UnmaskedPost, "without the causal mask"),
            (SwappedPost, "layer norms are swapped"),
            (ReluPost, "ReLU FFN"),
            (PostNorm, "uses nn.MultiheadAttention"),
        ],
        "complete-block": [
            (PreNorm, "uses nn.MultiheadAttention"),
            (Unmasked, "the future leaks in"),
            (OneHead, "one head"),
            (PostNormMine, "normalises after each residual sum"),
        ],
        "padding": [
            (right_padding, "comes after a real token"),
            (inverted, "True marks the real tokens"),
            (one_too_many, "padded ones"),
            (
                lambda lengths, length: inverted(lengths, length).float(),
                "dtype",
            ),
        ],
        "zero-branch": [
            (width_six, "build test inputs from block.config"),
            (first_half_only, "without norm_ffn"),
            (lambda block: True, "adds the normalised input"),
        ],
        "causal": [
            (first_output_only, "see one ahead"),
            (shifts_every_feature, "with no mask"),
        ],
        "shapes": [
            (running_example_only, "loses an axis of length 1"),
            (no_single_token, "loses an axis of length 1"),
        ],
        "gradient": [
            (piled_up, "pile up"),
            (output_norms, "gradient_norms_by_depth"),
        ],
    }


def systems_plants(ns):
    sinusoidal, cached_step = ns["sinusoidal"], ns["cached_step"]

    def at(offset_of):
        def next_output(block, token, cache):
            width = block.config.width
            X_new = token + sinusoidal(offset_of(cache), 1, width)
            return cached_step(block, X_new, cache)[0]

        return next_output

    def unencoded(block, token, cache):
        return cached_step(block, token, cache)[0]

    def ffn_bytes(block, X, per_element=None):
        seen = []
        parts = [block.ffn.up, block.ffn.act, block.ffn.down]
        handles = [
            part.register_forward_hook(lambda m, i, out: seen.append(out))
            for part in parts
        ]
        block(X)
        for handle in handles:
            handle.remove()
        size = per_element or X.element_size()
        return sum(tensor.numel() for tensor in seen) * size

    def formula(block, X):
        B, S, D = X.shape
        return B * S * (2 * block.config.ff_width + D) * X.element_size()

    def copied_from_the_chapter(block, X):
        return ns["measure_activations"](block, X)["ffn_hidden"]

    def saved(count_each_time, per_element=False):
        def saved_bytes(fn, *inputs):
            sizes = {}

            def pack(T):
                storage = T.untyped_storage()
                if per_element:
                    size = T.numel()
                elif count_each_time:
                    size = T.numel() * T.element_size()
                else:
                    size = storage.nbytes()
                key = len(sizes) if count_each_time else storage.data_ptr()
                sizes[key] = size
                return T

            with torch.autograd.graph.saved_tensors_hooks(pack, lambda T: T):
                fn(*inputs)
            return sum(sizes.values())

        return saved_bytes

    def one_block(B, S, D, blocks, size):
        return 2 * B * S * D * size

    def keys_only(B, S, D, blocks, size):
        return blocks * B * S * D * size

    return {
        "saved-bytes": [
            (saved(count_each_time=True), "the rows' own sizes"),
            (saved(False, per_element=True), "a number of elements"),
            (lambda fn, *inputs: 0, "you counted nothing"),
        ],
        "kv-cache": [
            (one_block, "you counted one block"),
            (keys_only, "you counted half the cache"),
        ],
        "cached-offset": [
            (at(lambda cache: 0), "Offset is 0"),
            (at(lambda cache: cache.length - 1), "Offset is 4"),
            (unencoded, "no positional encoding"),
        ],
        "ffn-bytes": [
            (formula, "formulas give for config.ff_width"),
            (copied_from_the_chapter, "activation's output alone"),
            (lambda block, X: ffn_bytes(block, X, 1), "number of elements"),
            (
                lambda block, X: ffn_bytes(block, X, 2),
                "Off by a factor of 2",
            ),
        ],
    }


PLANTS = {
    "mechanics": mechanics_plants,
    "maths-and-code": maths_plants,
    "systems": systems_plants,
}


@pytest.mark.parametrize("name", GRADED)
def test_planted_wrong_answers_lose_the_points(name, chapter):
    ns = chapter(name, skip=DEMONSTRATIONS[name])
    questions = assignments.questions(
        assignments.qmd.parse(ROOT / "chapters" / f"{name}.qmd")
    )
    plants = PLANTS[name](ns)
    assert sorted(plants) == sorted(q.name for q in questions)
    for question in questions:
        assert len(plants[question.name]) >= 2, question.name
        for answer, words in plants[question.name]:
            env = {**ns, question.answer: answer}
            score, _, messages = grade(name, question.name, env)
            said = public_message(messages)
            assert score == 0, f"{question.name}: {words!r} scored {score}"
            assert words in said, f"{question.name}: {said!r}"
            assert said.endswith((".", "?")), said


def test_no_solution_text_in_student_artefacts():
    assert not leaks.check_no_solution_leaks(ROOT)


def test_a_planted_solution_line_is_found(tmp_path):
    book = copy_book(tmp_path / "book")
    (book / "assignments").mkdir()
    for name in GRADED:
        source = ROOT / "assignments" / f"{name}.ipynb"
        (book / "assignments" / source.name).write_text(
            source.read_text("utf-8"), encoding="utf-8"
        )
    assert not leaks.check_no_solution_leaks(book)
    trace = leaks.solution_traces("systems", book)[0]
    path = book / "assignments" / "systems.ipynb"
    notebook = nbformat.read(path, 4)
    notebook.cells[-1].source += "\n" + trace
    nbformat.write(notebook, path)
    problems = leaks.check_no_solution_leaks(book)
    assert [p for p in problems if "assignments/systems.ipynb" in p]
    # A printed value of a solution, on a rendered student page.
    printed = next(
        t for t in leaks.solution_traces("mechanics", book) if "[" in t
    )
    page = book / "_book" / "chapters" / "mechanics.html"
    page.parent.mkdir(parents=True)
    page.write_text(f"<p>{printed.replace('[', '&#91;')}</p>", "utf-8")
    problems = leaks.check_no_solution_leaks(book)
    assert [p for p in problems if "_book/chapters/mechanics.html" in p]


def test_the_books_answer_check_covers_the_assignments(tmp_path):
    import nbcheck

    book = copy_book(tmp_path / "book")
    (book / "assignments").mkdir()
    source = ROOT / "assignments" / "mechanics.ipynb"
    path = book / "assignments" / "mechanics.ipynb"
    notebook = nbformat.read(source, 4)
    nbformat.write(notebook, path)
    assert not nbcheck.check_no_answers_for_students(book)
    # A value the solution prints, planted in the assignment.
    notebook.cells[-1].source += "\n# [0.07, 0.06, 0.081]"
    nbformat.write(notebook, path)
    problems = nbcheck.check_no_answers_for_students(book)
    assert [p for p in problems if "assignments/mechanics.ipynb" in p]
