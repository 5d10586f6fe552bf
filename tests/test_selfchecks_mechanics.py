"""The mechanics chapter's GELU self-check passes the reference solution
and rejects wrong solutions with one sentence saying what is wrong."""

import pytest
from conftest import LazyModule

torch = LazyModule("torch")
# Runs a chapter, so imports torch and matplotlib (see
# conftest.pytest_xdist_make_scheduler).
pytestmark = pytest.mark.heavy_imports


@pytest.fixture(scope="module")
def ns(chapter):
    return chapter("mechanics")


def run_check(ns, printed, candidate):
    passed, message = printed(ns["check_gelu_ffn"], candidate)
    # One sentence on one line, never a traceback.
    assert "\n" not in message
    assert message.endswith(".")
    assert "Traceback" not in message
    return passed, message


def test_reference_solution_passes(ns, printed):
    passed, message = run_check(ns, printed, ns["solution_gelu_ffn"])
    assert passed is True
    assert message.startswith("Passes")


def hand_gelu(x):
    """GELU written out, as a learner must: x * Phi(x)."""
    return x * 0.5 * (1 + torch.erf(x / 2**0.5))


def test_tanh_approximation_passes(ns, printed):
    def tanh_gelu_ffn(sequence, W1, W2):
        h = sequence @ W1.T
        inner = (2 / torch.pi) ** 0.5 * (h + 0.044715 * h**3)
        return (0.5 * h * (1 + torch.tanh(inner))) @ W2.T

    passed, _ = run_check(ns, printed, tanh_gelu_ffn)
    assert passed is True


def test_double_precision_passes(ns, printed):
    def double_gelu_ffn(sequence, W1, W2):
        return ns["solution_gelu_ffn"](
            sequence.double(), W1.double(), W2.double()
        )

    passed, _ = run_check(ns, printed, double_gelu_ffn)
    assert passed is True
    # The grader's hidden test accepts what the self-check accepts.
    ns["test_gelu_ffn_hidden"]({**ns, "my_gelu_ffn": double_gelu_ffn})


def test_starter_reports_none(ns, printed):
    passed, message = run_check(ns, printed, ns["my_gelu_ffn"])
    assert passed is False
    assert "returns None" in message


def test_relu_kept_fails(ns, printed):
    passed, message = run_check(ns, printed, ns["relu_ffn"])
    assert passed is False
    assert "still uses ReLU" in message


def test_no_activation_fails(ns, printed):
    def linear_ffn(sequence, W1, W2):
        return sequence @ W1.T @ W2.T

    passed, message = run_check(ns, printed, linear_ffn)
    assert passed is False
    assert "no activation" in message


def test_hidden_layer_returned_fails_on_shape(ns, printed):
    def hidden_only(sequence, W1, W2):
        return hand_gelu(sequence @ W1.T)

    passed, message = run_check(ns, printed, hidden_only)
    assert passed is False
    assert "shape (3, 4)" in message
    assert "(3, 3)" in message


def test_untransposed_weight_fails_without_traceback(ns, printed):
    def untransposed(sequence, W1, W2):
        return hand_gelu(sequence @ W1) @ W2.T

    passed, message = run_check(ns, printed, untransposed)
    assert passed is False
    assert "raised RuntimeError: " in message
    assert "If it is a shape error" in message
    assert "transposed" in message


def test_other_exception_is_named_with_its_message(ns, printed):
    def broken(sequence, W1, W2):
        return 1 / 0

    passed, message = run_check(ns, printed, broken)
    assert passed is False
    assert "raised ZeroDivisionError: division by zero." in message


@pytest.mark.parametrize(
    "convert, said",
    [
        (lambda output: output.tolist(), "returns a list"),
        (lambda output: output.numpy(), "returns an ndarray, not a torch"),
    ],
)
def test_other_types_fail(ns, printed, convert, said):
    def converted(sequence, W1, W2):
        return convert(ns["solution_gelu_ffn"](sequence, W1, W2))

    passed, message = run_check(ns, printed, converted)
    assert passed is False
    assert said in message


def test_result_instead_of_function_fails(ns, printed):
    result = ns["solution_gelu_ffn"](ns["sequence"], ns["W1"], ns["W2"])
    passed, message = run_check(ns, printed, result)
    assert passed is False
    assert "Pass your function itself" in message


def test_gelu_after_second_layer_is_off(ns, printed):
    def gelu_twice(sequence, W1, W2):
        hidden = hand_gelu(sequence @ W1.T)
        return hand_gelu(hidden @ W2.T)

    passed, message = run_check(ns, printed, gelu_twice)
    assert passed is False
    assert "off by up to" in message


def test_hard_coded_answer_fails(ns, printed):
    example = ns["solution_gelu_ffn"](ns["sequence"], ns["W1"], ns["W2"])

    def hard_coded(sequence, W1, W2):
        return example.clone()

    passed, message = run_check(ns, printed, hard_coded)
    assert passed is False
    assert "but for 4 tokens of width 5" in message
    assert "apply GELU" not in message


def test_non_finite_output_fails(ns, printed):
    def with_nan(sequence, W1, W2):
        return torch.full((3, 3), float("nan"))

    passed, message = run_check(ns, printed, with_nan)
    assert passed is False
    assert "finite" in message


def pytorch_gelu(sequence, W1, W2):
    return torch.nn.functional.gelu(sequence @ W1.T) @ W2.T


def pytorch_tanh_gelu(sequence, W1, W2):
    return torch.nn.GELU(approximate="tanh")(sequence @ W1.T) @ W2.T


def silu_ffn(sequence, W1, W2):
    hidden = sequence @ W1.T
    return (hidden * torch.sigmoid(hidden)) @ W2.T


def phi_without_the_change_of_variable(sequence, W1, W2):
    hidden = sequence @ W1.T
    return (hidden * 0.5 * (1 + torch.erf(hidden))) @ W2.T


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (pytorch_gelu, "calls PyTorch's GELU"),
        (pytorch_tanh_gelu, "calls PyTorch's GELU"),
        (silu_ffn, "is SiLU"),
        (phi_without_the_change_of_variable, "Phi(1) is about 0.841"),
    ],
)
def test_gelu_of_ones_own_is_required(ns, printed, wrong, says):
    passed, message = run_check(ns, printed, wrong)
    assert passed is False
    assert says in message
    assert "erf" not in message  # the hint never spells out Phi
