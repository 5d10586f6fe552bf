"""The self-checks of the maths-and-code chapter judge answers correctly.

Each check must pass its reference solution, fail each deliberately wrong
answer with a sentence naming the mistake, and answer bad input (wrong type,
wrong width, a function that raises) with one sentence, never a traceback.
"""

from __future__ import annotations

import copy

import pytest
from conftest import DEMONSTRATIONS, LazyModule

torch = LazyModule("torch")
# Runs a chapter, so imports torch and matplotlib (see
# conftest.pytest_xdist_make_scheduler).
pytestmark = pytest.mark.heavy_imports

CHAPTER = "maths-and-code"


@pytest.fixture(scope="module")
def ns(chapter):
    return chapter(CHAPTER, skip=DEMONSTRATIONS[CHAPTER])


def one_sentence(text: str) -> bool:
    return "\n" not in text and "Traceback" not in text and text.endswith(".")


def fails_each(printed, check, cases):
    """Each (wrong answer, words) case fails with one sentence saying so."""
    for candidate, expected in cases:
        result, out = printed(check, candidate)
        assert result is False, out
        assert expected in out, out
        assert one_sentence(out), out


# ------------------------------------------------------- reference answers

SOLUTIONS = [
    ("check_post_norm_block", "SolutionPostNormBlock"),
    ("check_complete_block", "SolutionBlock"),
    ("check_padding_mask", "solution_padding_mask"),
    ("check_zero_branch_test", "solution_zero_branch"),
    ("check_causal_test", "solution_causal_test"),
    ("check_shape_test", "solution_shape_test"),
    ("check_gradient_norms", "solution_gradient_norms"),
]


@pytest.mark.parametrize(("check", "solution"), SOLUTIONS)
def test_reference_solution_passes(ns, printed, check, solution):
    result, out = printed(ns[check], ns[solution])
    assert result is True, out
    assert out.startswith("Passes:"), out
    assert one_sentence(out), out


@pytest.mark.parametrize(
    ("check", "starter"),
    [
        ("check_padding_mask", "my_padding_mask"),
        ("check_zero_branch_test", "my_zero_branch_test"),
        ("check_causal_test", "my_causal_test"),
        ("check_shape_test", "my_shape_test"),
        ("check_gradient_norms", "my_gradient_norms"),
    ],
)
def test_starter_says_what_is_missing(ns, printed, check, starter):
    result, out = printed(ns[check], ns[starter])
    assert result is False
    assert out.startswith("Not yet:") and "None" in out, out
    assert one_sentence(out), out


# ------------------------------------------------------- wrong post-norm


def post_norm_variant(ns, forward):
    """A block class with the complete block's parts and this forward."""
    return type("Candidate", (ns["SolutionBlock"],), {"forward": forward})


def wrong_post_norm_blocks(ns):
    def unmasked(block, Z):
        B, S, D = Z.shape
        Q, K, V = (block.heads(f(Z)) for f in (block.q, block.k, block.v))
        scores = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
        joined = (scores.softmax(dim=-1) @ V).transpose(1, 2)
        return block.out(joined.reshape(B, S, D))

    def no_residual(self, X):
        H = self.norm_attn(self.attention(X))
        return self.norm_ffn(H + self.ffn(H))

    def no_mask(self, X):
        H = self.norm_attn(X + unmasked(self, X))
        return self.norm_ffn(H + self.ffn(H))

    def swapped(self, X):
        H = self.norm_ffn(X + self.attention(X))
        return self.norm_attn(H + self.ffn(H))

    def relu_ffn(self, X):
        H = self.norm_attn(X + self.attention(X))
        G = self.ffn[2](torch.relu(self.ffn[0](H)))
        return self.norm_ffn(H + G)

    def returns_tuple(self, X):
        return ns["SolutionPostNormBlock"].forward(self, X), None

    return {
        "pre-norm": (ns["SolutionBlock"], "computes pre-norm"),
        "no attention residual": (
            post_norm_variant(ns, no_residual),
            "check each residual sum",
        ),
        "no mask": (post_norm_variant(ns, no_mask), "without the causal mask"),
        "swapped norms": (post_norm_variant(ns, swapped), "swapped"),
        "ReLU FFN": (post_norm_variant(ns, relu_ffn), "with a ReLU FFN"),
        "tuple": (post_norm_variant(ns, returns_tuple), "one tensor"),
        "uses nn.MultiheadAttention": (
            ns["PostNormBlock"],
            "uses nn.MultiheadAttention",
        ),
    }


@pytest.mark.parametrize(
    "mistake",
    [
        "pre-norm",
        "no attention residual",
        "no mask",
        "swapped norms",
        "ReLU FFN",
        "tuple",
        "uses nn.MultiheadAttention",
    ],
)
def test_post_norm_check_names_the_mistake(ns, printed, mistake):
    candidate, expected = wrong_post_norm_blocks(ns)[mistake]
    result, out = printed(ns["check_post_norm_block"], candidate)
    assert result is False, out
    assert expected in out, out
    assert one_sentence(out), out


def test_post_norm_check_bad_inputs(ns, printed):
    check = ns["check_post_norm_block"]
    cases = [
        (42, "expected a block class"),
        (ns["MyPostNormBlock"], "norm_attn; finish MyBlock's __init__"),
        (lambda c: torch.nn.Linear(6, 6), "no submodule norm_attn."),
        (lambda c: 1 / 0, "raised ZeroDivisionError"),
    ]
    fails_each(printed, check, cases)


def test_complete_block_check_names_the_mistake(ns, printed):
    Solution = ns["SolutionBlock"]

    class OneHead(Solution):
        def heads(self, T):
            return T[:, None]  # (B, 1, S, D): one head of width D

    class Unscaled(Solution):
        def attention(self, Z):
            return Solution.attention(self, Z * 8**0.5)

    class SoftmaxOverQueries(Solution):
        def attention(self, Z):
            B, S, D = Z.shape
            Q, K, V = (self.heads(f(Z)) for f in (self.q, self.k, self.v))
            scores = Q @ K.transpose(-2, -1) / (D // self.config.heads) ** 0.5
            scores = scores.masked_fill(ns["causal_mask"](S), float("-inf"))
            joined = (scores.softmax(dim=-2) @ V).transpose(1, 2)
            return self.out(joined.reshape(B, S, D))

    class ReluFFN(Solution):
        def forward(self, X):
            H = X + self.attention(self.norm_attn(X))
            N = self.norm_ffn(H)
            return H + self.ffn[2](torch.relu(self.ffn[0](N)))

    class ReluModule(Solution):
        def __init__(self, config):
            super().__init__(config)
            self.ffn[1] = torch.nn.ReLU()

    class AddsNormalisedInput(Solution):
        def forward(self, X):
            Z = self.norm_attn(X)
            H = Z + self.attention(Z)  # should be X + ...
            return H + self.ffn(self.norm_ffn(H))

    attention = "and so does attention(LN1(X)); check the score scaling"
    cases = [
        (ns["PreNormBlock"], "uses nn.MultiheadAttention"),
        (ns["SolutionPostNormBlock"], "normalises after each residual sum"),
        (OneHead, "attends with one head"),
        (Unscaled, attention),
        (SoftmaxOverQueries, "the softmax's axis"),
        (ReluFFN, "its FFN applies ReLU"),
        (ReluModule, "its FFN applies ReLU"),
        (AddsNormalisedInput, "so check how forward adds them"),
        (ns["MyBlock"], "no submodule norm_attn"),
    ]
    fails_each(printed, ns["check_complete_block"], cases)


# --------------------------------------------------------- wrong padding


def test_padding_check_names_the_mistake(ns, printed):
    check = ns["check_padding_mask"]

    def positions(lengths, length):
        return torch.arange(length)[None, :], lengths[:, None]

    def right_padding(lengths, length):
        row, column = positions(lengths, length)
        return row >= column  # the chapter's mask, for right padding

    def inverted(lengths, length):
        row, column = positions(lengths, length)
        return row >= length - column

    def off_by_one(lengths, length):
        row, column = positions(lengths, length)
        return row <= length - column

    def as_float(lengths, length):
        row, column = positions(lengths, length)
        return (row < length - column).float()

    def transposed(lengths, length):
        row, column = positions(lengths, length)
        return (row < length - column).T

    cases = [
        (right_padding, "every padded position comes first"),
        (inverted, "True marks the real tokens"),
        (off_by_one, "marks 1 position as padding,"),
        (as_float, "dtype torch.float32"),
        (transposed, "returned shape (4, 2)"),
        ("mask", "expected a function"),
        (lambda lengths, length: [[False]], "returned a list"),
        (lambda lengths: lengths, "raised TypeError"),
    ]
    fails_each(printed, check, cases)


# ------------------------------------------------- wrong zero-branch tests


def test_zero_branch_check_names_the_mistake(ns, printed):
    check = ns["check_zero_branch_test"]

    def always_true(block):
        return True

    def shape_only(block):
        X = torch.zeros(1, 3, block.config.width)
        return block(X).shape == X.shape

    def attention_only_vs_input(block):
        quiet = copy.deepcopy(block)
        with torch.no_grad():
            quiet.attn.out_proj.weight.zero_()
            quiet.attn.out_proj.bias.zero_()
            X = torch.ones(1, 3, block.config.width)
            return torch.allclose(quiet(X), X)

    def zeroes_in_place(block):
        with torch.no_grad():
            for layer in (block.attn.out_proj, block.ffn[2]):
                layer.weight.zero_()
                layer.bias.zero_()
            X = torch.ones(1, 3, block.config.width)
            return torch.equal(block(X), X)

    def wrong_width(block):
        X = torch.ones(1, 3, 6)  # the running example's width, hard-coded
        return torch.equal(block(X), X)

    def both_silenced_only(block):
        quiet = copy.deepcopy(block)
        with torch.no_grad():
            for layer in (quiet.attn.out_proj, quiet.ffn[2]):
                layer.weight.zero_()
                layer.bias.zero_()
            X = torch.randn(2, 5, block.config.width)
            return torch.equal(quiet(X), X)

    def weights_only(block):
        quiet = copy.deepcopy(block)
        with torch.no_grad():
            for layer in (quiet.attn.out_proj, quiet.ffn[2]):
                layer.weight.zero_()  # the biases still add their values
            X = torch.randn(2, 5, block.config.width)
            return torch.allclose(quiet(X), X)

    def returns_tensor(block):
        return torch.tensor(1.0)

    cases = [
        (always_true, "accepted a block that adds the normalised input"),
        (weights_only, "(weight and bias of attn.out_proj and of ffn[2])"),
        (shape_only, "check the output equals the input"),
        (attention_only_vs_input, "rejected a correct pre-norm block"),
        (zeroes_in_place, "changed the block it was given"),
        (wrong_width, "on a block of width 8"),
        (both_silenced_only, "without norm_ffn; silence only attention"),
        (returns_tensor, "returned a Tensor"),
        (None, "expected a function"),
    ]
    fails_each(printed, check, cases)


# ----------------------------------------------------- wrong causal tests


def outputs(block, X):
    with torch.no_grad():
        return block(X)


def test_causal_check_names_the_mistake(ns, printed):
    check = ns["check_causal_test"]

    def data(block):
        generator = torch.Generator().manual_seed(0)
        return torch.randn(2, 6, block.config.width, generator=generator)

    def shape_only(block):
        X = data(block)
        return outputs(block, X).shape == X.shape

    def wrong_direction(block):
        X = data(block)
        changed = X.clone()
        changed[:, 0, 0] += 100.0
        return torch.allclose(
            outputs(block, X)[:, 1:], outputs(block, changed)[:, 1:]
        )

    def first_output_only(block):
        X = data(block)
        changed = X.clone()
        changed[:, -1, 0] += 100.0
        return torch.allclose(
            outputs(block, X)[:, 0], outputs(block, changed)[:, 0]
        )

    def wrong_width(block):
        X = torch.randn(2, 6, 8)
        return torch.equal(outputs(block, X), outputs(block, X))

    def last_position_only(block):
        # The chapter's own check: it cannot see a leak to position 0.
        X = data(block)
        changed = X.clone()
        changed[:, -1, 0] += 100.0
        before = outputs(block, X)[:, :-1]
        return torch.equal(before, outputs(block, changed)[:, :-1])

    def first_output_every_position(block):
        # Catches every leak into position 0, and none into a later one.
        X = data(block)
        for position in range(1, X.shape[1]):
            changed = X.clone()
            changed[:, position, 0] += 100.0
            if not torch.allclose(
                outputs(block, X)[:, 0], outputs(block, changed)[:, 0]
            ):
                return False
        return True

    def every_feature(block):
        # A layer norm removes the added mean, so no leak can show.
        X = data(block)
        changed = X.clone()
        changed[:, -1] += 100.0
        before = outputs(block, X)[:, :-1]
        return torch.allclose(before, outputs(block, changed)[:, :-1])

    def every_feature_everywhere(block):
        # Passes on rounding errors alone: the leaks move earlier outputs
        # by about 1e-6, and torch.equal sees that.
        X = data(block)
        for position in range(1, X.shape[1]):
            changed = X.clone()
            changed[:, position] += 100.0
            before = outputs(block, X)[:, :position]
            if not torch.equal(before, outputs(block, changed)[:, :position]):
                return False
        return True

    def two_positions(block):
        X = data(block)[:, :2]
        changed = X.clone()
        changed[:, 1, 0] += 100.0
        first = outputs(block, X)[:, 0]
        return torch.allclose(first, outputs(block, changed)[:, 0])

    whole_tokens = "adds the same number to every feature of a position"
    cases = [
        (shape_only, "accepted a block with no mask"),
        (every_feature, whole_tokens),
        (every_feature_everywhere, whole_tokens),
        (two_positions, "at most 2 positions"),
        (wrong_width, "on a block of width 6"),
        (wrong_direction, "rejected a causal PreNormBlock"),
        (first_output_only, "one ahead"),
        (last_position_only, "position 0 only"),
        (first_output_every_position, "position 1 only"),
        (lambda block: None, "returned None"),
        (12, "expected a function"),
    ]
    fails_each(printed, check, cases)


# ------------------------------------------------------ wrong shape tests


def test_shape_check_names_the_mistake(ns, printed):
    check = ns["check_shape_test"]

    def keeps_shapes(block, sizes):
        generator = torch.Generator().manual_seed(0)
        for B, S in sizes:
            X = torch.randn(B, S, block.config.width, generator=generator)
            if outputs(block, X).shape != X.shape:
                return False
        return True

    def one_shape(block):
        return keeps_shapes(block, [(2, 4)])

    def length_four_only(block):
        return keeps_shapes(block, [(1, 4), (2, 4), (3, 4), (8, 4)])

    def wrong_width(block):
        X = torch.randn(2, 4, 6)
        return outputs(block, X).shape == X.shape

    def rejects_everything(block):
        return False

    def output_only(block):
        # The chapter's own check, at the block's width: no weights.
        return keeps_shapes(block, [(1, 1), (2, 4), (3, 7), (8, 16)])

    cases = [
        (output_only, "averages its weights over the heads"),
        (one_shape, "accepted a block that loses an axis of length 1"),
        (length_four_only, "accepted a block that works only at length 4"),
        (wrong_width, "on a block of width 8"),
        (rejects_everything, "rejected a correct PreNormBlock"),
        (lambda block: None, "returned None"),
        ("shapes", "expected a function"),
    ]
    fails_each(printed, check, cases)


def test_shape_check_accepts_a_test_that_catches_errors(ns, printed):
    def careful(block):
        heads = block.config.heads
        try:
            for B, S in [(1, 1), (2, 5)]:
                X = torch.zeros(B, S, block.config.width)
                with torch.no_grad():
                    Y, weights = block(X, need_weights=True)
                if Y.shape != X.shape or weights.shape != (B, heads, S, S):
                    return False
        except RuntimeError:
            return False
        return True

    result, out = printed(ns["check_shape_test"], careful)
    assert result is True, out


# ------------------------------------------------ wrong gradient measures


def test_gradient_check_names_the_mistake(ns, printed):
    check = ns["check_gradient_norms"]
    reference = ns["solution_gradient_norms"]

    def accumulating(blocks, X, R):
        X = X.clone().requires_grad_(True)
        norms = []
        for depth in range(1, len(blocks) + 1):
            Y = X
            for block in blocks[:depth]:
                Y = block(Y)
            (Y * R).sum().backward()
            norms.append(float(X.grad.norm()))
        return norms

    def ten_percent_off(blocks, X, R):
        return [1.1 * norm for norm in reference(blocks, X, R)]

    def one_short(blocks, X, R):
        return reference(blocks, X, R)[:-1]

    def with_nan(blocks, X, R):
        return [float("nan")] * len(blocks)

    def wrong_width(blocks, X, R):
        return [float(blocks[0](torch.ones(1, 2, 6)).norm())] * len(blocks)

    cases = [
        (accumulating, "pile up"),
        (ten_percent_off, "off by 10.0%"),
        (one_short, "returned 11 values for a stack of 12 blocks"),
        (with_nan, "not finite"),
        (wrong_width, "raised"),
        (ns["gradient_norms_by_depth"], "stacked copies of X"),
        (lambda *args: ns["gradient_norms_by_depth"](*args), "stacked"),
        (lambda blocks, X, R: 3.0, "returned a float"),
        ("norms", "expected a function"),
    ]
    fails_each(printed, check, cases)


def test_gradient_check_accepts_tensor_values(ns, printed):
    reference = ns["solution_gradient_norms"]

    def as_tensors(blocks, X, R):
        return [torch.tensor(norm) for norm in reference(blocks, X, R)]

    result, out = printed(ns["check_gradient_norms"], as_tensors)
    assert result is True, out


# ------------------------------------------------------------- the quiz


def test_quiz_check_says_right_or_wrong_without_the_key(ns, printed):
    said = [printed(ns["check_quiz"], 4, letter) for letter in "abcd"]
    assert [verdict for verdict, _ in said].count(True) == 1
    for verdict, sentence in said:
        assert sentence == (
            "Right."
            if verdict
            else "Not this one; reread the section and try again."
        )
    assert printed(ns["check_quiz"], 6, "a") == (
        False,
        "There is no question 6; the questions are 1, 2, 3, 4, 5.",
    )
    # A question typed as text is the same question.
    right = "abcd"[[verdict for verdict, _ in said].index(True)]
    assert printed(ns["check_quiz"], "4", right) == (True, "Right.")
    assert printed(ns["check_quiz"], 1, "e")[0] is False


# ------------------------------------------------------ hidden gradient test


def test_hidden_gradient_test_wants_a_pass_per_depth(ns):
    """The chapter's batched function gives the right norms, but is not
    the separate pass per depth the exercise asks for."""
    hidden = ns["test_gradient_hidden"]
    hidden({**ns, "my_gradient_norms": ns["solution_gradient_norms"]})
    with pytest.raises(AssertionError, match="stacked copies"):
        hidden({**ns, "my_gradient_norms": ns["gradient_norms_by_depth"]})
