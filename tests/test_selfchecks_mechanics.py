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


def test_tanh_approximation_passes(ns, printed):
    def tanh_gelu_ffn(sequence, W1, W2):
        hidden = torch.nn.functional.gelu(sequence @ W1.T, approximate="tanh")
        return hidden @ W2.T

    passed, _ = run_check(ns, printed, tanh_gelu_ffn)
    assert passed is True


def test_double_precision_passes(ns, printed):
    def double_gelu_ffn(sequence, W1, W2):
        return ns["solution_gelu_ffn"](
            sequence.double(), W1.double(), W2.double()
        )

    passed, _ = run_check(ns, printed, double_gelu_ffn)
    assert passed is True


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
        return torch.nn.functional.gelu(sequence @ W1.T)

    passed, message = run_check(ns, printed, hidden_only)
    assert passed is False
    assert "shape (3, 4)" in message
    assert "(3, 3)" in message


def test_untransposed_weight_fails_without_traceback(ns, printed):
    def untransposed(sequence, W1, W2):
        return torch.nn.functional.gelu(sequence @ W1) @ W2.T

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


def test_list_fails(ns, printed):
    def as_list(sequence, W1, W2):
        return ns["solution_gelu_ffn"](sequence, W1, W2).tolist()

    passed, message = run_check(ns, printed, as_list)
    assert passed is False
    assert "returns a list" in message


def test_result_instead_of_function_fails(ns, printed):
    result = ns["solution_gelu_ffn"](ns["sequence"], ns["W1"], ns["W2"])
    passed, message = run_check(ns, printed, result)
    assert passed is False
    assert "Pass your function itself" in message


def test_gelu_after_second_layer_is_off(ns, printed):
    def gelu_twice(sequence, W1, W2):
        hidden = torch.nn.functional.gelu(sequence @ W1.T)
        return torch.nn.functional.gelu(hidden @ W2.T)

    passed, message = run_check(ns, printed, gelu_twice)
    assert passed is False
    assert "off by up to" in message


def test_hard_coded_answer_fails(ns, printed):
    example = ns["solution_gelu_ffn"](ns["sequence"], ns["W1"], ns["W2"])

    def hard_coded(sequence, W1, W2):
        return example.clone()

    passed, message = run_check(ns, printed, hard_coded)
    assert passed is False
    assert "returns the first input's result" in message
    assert "apply GELU" not in message


def test_non_finite_output_fails(ns, printed):
    def with_nan(sequence, W1, W2):
        return torch.full((3, 3), float("nan"))

    passed, message = run_check(ns, printed, with_nan)
    assert passed is False
    assert "finite" in message
