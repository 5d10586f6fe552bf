"""The training chapter's warm-up self-check passes the reference solution
and rejects wrong solutions with one sentence saying what is wrong; the
grader's hidden test agrees with it."""

import pytest
from conftest import DEMONSTRATIONS, LazyModule

torch = LazyModule("torch")
# Runs a chapter, so imports torch and matplotlib (see
# conftest.pytest_xdist_make_scheduler).
pytestmark = pytest.mark.heavy_imports


@pytest.fixture(scope="module")
def ns(chapter):
    # The training runs take most of the chapter's time; no check uses them.
    return chapter("training", skip=DEMONSTRATIONS["training"])


def run_check(ns, printed, candidate):
    passed, message = printed(ns["check_warmup_lr"], candidate)
    # One sentence on one line, never a traceback.
    assert "\n" not in message
    assert message.endswith(".")
    assert "Traceback" not in message
    return passed, message


def hidden(ns, candidate) -> bool:
    try:
        ns["test_warmup_hidden"]({"my_warmup_lr": candidate})
    except AssertionError:
        return False
    return True


def test_reference_solution_passes(ns, printed):
    passed, message = run_check(ns, printed, ns["solution_warmup_lr"])
    assert passed is True
    assert message.startswith("Passes")
    assert hidden(ns, ns["solution_warmup_lr"])


def test_another_correct_form_passes(ns, printed):
    def stepwise(step, base_lr, warmup_steps):
        if warmup_steps == 0 or step >= warmup_steps:
            return base_lr
        return (
            base_lr
            / warmup_steps
            * (1 + step * (warmup_steps - 1) / warmup_steps)
        )

    passed, _ = run_check(ns, printed, stepwise)
    assert passed is True
    assert hidden(ns, stepwise)


def test_tensor_of_one_value_passes(ns, printed):
    def as_tensor(step, base_lr, warmup_steps):
        rate = ns["solution_warmup_lr"](step, base_lr, warmup_steps)
        return torch.tensor(rate, dtype=torch.float64)

    passed, _ = run_check(ns, printed, as_tensor)
    assert passed is True


def test_starter_reports_none(ns, printed):
    passed, message = run_check(ns, printed, ns["my_warmup_lr"])
    assert passed is False
    assert "returns None" in message


def test_not_callable(ns, printed):
    passed, message = run_check(ns, printed, 0.01)
    assert passed is False
    assert "pass your function itself" in message


def test_starts_at_zero(ns, printed):
    def from_zero(step, base_lr, warmup_steps):
        if warmup_steps == 0:
            return base_lr
        return base_lr * min(1, step / warmup_steps)

    passed, message = run_check(ns, printed, from_zero)
    assert passed is False
    assert "at step 0 it returns 0" in message
    assert not hidden(ns, from_zero)


def test_one_step_early(ns, printed):
    def early(step, base_lr, warmup_steps):
        if warmup_steps == 0:
            return base_lr
        return base_lr * min(1, (step + 1) / warmup_steps)

    passed, message = run_check(ns, printed, early)
    assert passed is False
    assert "one step early" in message
    assert not hidden(ns, early)


def test_keeps_rising(ns, printed):
    def rising(step, base_lr, warmup_steps):
        if warmup_steps == 0:
            return base_lr
        start = 1 / warmup_steps
        return base_lr * (start + (1 - start) * step / warmup_steps)

    passed, message = run_check(ns, printed, rising)
    assert passed is False
    assert "keeps rising" in message


def test_decays_after_warmup(ns, printed):
    def decaying(step, base_lr, warmup_steps):
        rate = ns["solution_warmup_lr"](step, base_lr, warmup_steps)
        return rate * (0.5 if step > warmup_steps else 1.0)

    passed, message = run_check(ns, printed, decaying)
    assert passed is False
    assert "below base_lr" in message


def test_zero_warmup_divides_by_zero(ns, printed):
    def unguarded(step, base_lr, warmup_steps):
        start = 1 / warmup_steps
        done = min(step, warmup_steps) / warmup_steps
        return base_lr * (start + (1 - start) * done)

    passed, message = run_check(ns, printed, unguarded)
    assert passed is False
    assert "ZeroDivisionError" in message
    assert "without warm-up every step uses base_lr" in message
    assert not hidden(ns, unguarded)


@pytest.mark.parametrize("base_lr, warmup_steps", [(1e-2, 30), (3e-4, 7)])
def test_hard_coded_settings_fail(ns, printed, base_lr, warmup_steps):
    """An answer right for one of the check's settings fails the others."""

    def hard_coded(step, _base_lr, _warmup_steps):
        return ns["solution_warmup_lr"](step, base_lr, warmup_steps)

    passed, message = run_check(ns, printed, hard_coded)
    assert passed is False
    assert "not" in message
    assert not hidden(ns, hard_coded)


def test_list_return_fails(ns, printed):
    def as_list(step, base_lr, warmup_steps):
        return [ns["solution_warmup_lr"](step, base_lr, warmup_steps)]

    passed, message = run_check(ns, printed, as_list)
    assert passed is False
    assert "returns a list, not a number" in message


def test_redefined_check_does_not_fool_the_hidden_test(ns):
    """A learner who replaces check_warmup_lr still fails the hidden test."""
    assert not hidden(ns, lambda step, base_lr, warmup_steps: None)
