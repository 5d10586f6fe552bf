"""The systems chapter's self-checks pass the reference solutions and
reject wrong solutions, and bad input, with one sentence saying what is
wrong."""

import pytest
from conftest import DEMONSTRATIONS, LazyModule

torch = LazyModule("torch")
# Runs a chapter, so imports torch and matplotlib (see
# conftest.pytest_xdist_make_scheduler).
pytestmark = pytest.mark.heavy_imports


@pytest.fixture(scope="module")
def ns(chapter):
    # A wall-clock measurement the checks never use.
    return chapter("systems", skip=DEMONSTRATIONS["systems"])


def run_check(printed, check, candidate):
    passed, message = printed(check, candidate)
    # One sentence on one line, never a traceback.
    assert "\n" not in message
    assert message.endswith((".", "?"))
    assert "Traceback" not in message
    return passed, message


# ------------------------------------------------------ cached continuation


def cached(ns, printed, candidate):
    return run_check(printed, ns["check_cached_offset"], candidate)


def continuation(ns, offset_of):
    """A continuation that places the token at offset_of(cache)."""

    def continue_at(block, token, cache):
        width = block.config.width
        X_new = token + ns["sinusoidal"](offset_of(cache), 1, width)
        Y_new, _ = ns["cached_step"](block, X_new, cache)
        return Y_new

    return continue_at


def test_cached_reference_passes(ns, printed):
    passed, message = cached(ns, printed, ns["solution_cached_offset"])
    assert passed is True
    assert message.startswith("Passes")
    assert "two cache lengths" in message


def test_cached_pair_from_cached_step_is_accepted(ns, printed):
    def returns_pair(block, token, cache):
        X_new = token + ns["sinusoidal"](cache.length, 1, block.config.width)
        return ns["cached_step"](block, X_new, cache)

    passed, _ = cached(ns, printed, returns_pair)
    assert passed is True


def test_cached_starter_reports_none(ns, printed):
    passed, message = cached(ns, printed, ns["my_next_output"])
    assert passed is False
    assert "returned None" in message


def test_cached_offset_zero_fails(ns, printed):
    passed, message = cached(ns, printed, continuation(ns, lambda c: 0))
    assert passed is False
    assert "Offset is 0, which treats the token as" in message
    assert "5" not in message  # the message never gives the position away


def test_cached_off_by_one_fails(ns, printed):
    wrong = continuation(ns, lambda cache: cache.length - 1)
    passed, message = cached(ns, printed, wrong)
    assert passed is False
    assert "Offset is 4, which is not where" in message
    assert "cache.length" not in message and "5" not in message


def test_cached_without_positions_fails(ns, printed):
    def unplaced(block, token, cache):
        return ns["cached_step"](block, token, cache)[0]

    passed, message = cached(ns, printed, unplaced)
    assert passed is False
    assert "no positional encoding" in message


def test_cached_ignoring_the_cache_fails(ns, printed):
    def no_cache(block, token, cache):
        X_new = token + ns["sinusoidal"](cache.length, 1, block.config.width)
        return block(X_new)

    passed, message = cached(ns, printed, no_cache)
    assert passed is False
    assert "matches no position" in message


def test_cached_wrong_shape_fails(ns, printed):
    def whole_cache(block, token, cache):
        return cache.keys

    passed, message = cached(ns, printed, whole_cache)
    assert passed is False
    assert "shape (2, 2, 5, 4)" in message
    assert "(2, 1, 8)" in message


def test_cached_wrong_type_fails(ns, printed):
    passed, message = cached(ns, printed, lambda b, t, c: [0.0])
    assert passed is False
    assert "returned a list" in message


def test_cached_error_inside_torch_is_one_sentence(ns, printed):
    def wrong_width(block, token, cache):
        padded = torch.cat([token, token], dim=-1)  # (B, 1, 2D)
        return ns["cached_step"](block, padded, cache)[0]

    passed, message = cached(ns, printed, wrong_width)
    assert passed is False
    assert "wrong_width raised RuntimeError" in message


def test_cached_not_callable(ns, printed):
    passed, message = cached(ns, printed, 5)
    assert passed is False
    assert message == (
        "check_cached_offset needs a function, not a int object."
    )


def test_cached_check_leaves_the_global_seed_alone(ns, printed):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    cached(ns, printed, ns["solution_cached_offset"])
    assert torch.equal(torch.rand(3), expected)


# ----------------------------------------------------- activation measure


def ffn_bytes(ns, printed, candidate):
    return run_check(printed, ns["check_ffn_activation_bytes"], candidate)


def test_ffn_reference_passes(ns, printed):
    solution = ns["solution_ffn_activation_bytes"]
    passed, message = ffn_bytes(ns, printed, solution)
    assert passed is True
    assert message.startswith("Passes")


def hidden_elements(block, X):
    """Elements of what the FFN's up, act and down produce, by hooks."""
    seen = []
    parts = [block.ffn.up, block.ffn.act, block.ffn.down]
    handles = [
        part.register_forward_hook(
            lambda module, inputs, output: seen.append(output.numel())
        )
        for part in parts
    ]
    block(X)
    for handle in handles:
        handle.remove()
    return sum(seen)


def test_ffn_activation_alone_fails(ns, printed):
    def activation_only(block, X):
        return ns["measure_activations"](block, X)["ffn_hidden"]

    passed, message = ffn_bytes(ns, printed, activation_only)
    assert passed is False
    assert "activation's output alone" in message


def test_ffn_formula_fails_where_config_and_block_differ(ns, printed):
    def formula(block, X):
        B, S, D = X.shape
        return B * S * (2 * block.config.ff_width + D) * X.element_size()

    passed, message = ffn_bytes(ns, printed, formula)
    assert passed is False
    assert "measure the tensors the forward pass produces" in message


@pytest.mark.parametrize("factor", [1, 2])
def test_ffn_config_widths_get_the_config_hint(ns, printed, factor):
    # The config's hidden tensor, once or twice: with the check's sizes
    # neither may pass or be mistaken for a wrong element size.
    def from_config(block, X):
        B, S, _ = X.shape
        return B * S * factor * block.config.ff_width * X.element_size()

    passed, message = ffn_bytes(ns, printed, from_config)
    assert passed is False
    assert "formulas give for config.ff_width" in message, message


def test_ffn_starter_reports_none(ns, printed):
    passed, message = ffn_bytes(ns, printed, ns["my_ffn_activation_bytes"])
    assert passed is False
    assert "returned None" in message


def test_ffn_two_bytes_for_float32_fails(ns, printed):
    def two_bytes(block, X):
        return hidden_elements(block, X) * 2

    passed, message = ffn_bytes(ns, printed, two_bytes)
    assert passed is False
    assert message.startswith("Off by a factor of 2 for B=2, S=3, float32")
    assert "2 bytes per element for float32" in message


def test_ffn_four_bytes_for_bfloat16_fails(ns, printed):
    def four_bytes(block, X):
        return hidden_elements(block, X) * 4

    passed, message = ffn_bytes(ns, printed, four_bytes)
    assert passed is False
    assert "bfloat16" in message
    assert "4 bytes per element" in message


def test_ffn_element_count_fails(ns, printed):
    def elements(block, X):
        return hidden_elements(block, X)

    passed, message = ffn_bytes(ns, printed, elements)
    assert passed is False
    assert "number of elements" in message


def test_ffn_output_tensor_fails(ns, printed):
    def output_bytes(block, X):
        Y = block(X)  # (B, S, D), not the hidden tensor
        return Y.numel() * Y.element_size()

    passed, message = ffn_bytes(ns, printed, output_bytes)
    assert passed is False
    assert "only the FFN's output" in message


def test_ffn_other_wrong_count_fails(ns, printed):
    passed, message = ffn_bytes(ns, printed, lambda block, X: 7)
    assert passed is False
    assert "your 7 bytes are too low" in message
    assert "1,152" not in message and "1152" not in message


def test_ffn_float_result_fails(ns, printed):
    def as_float(block, X):
        return float(X.shape[0] * X.shape[1] * 24 * X.element_size())

    passed, message = ffn_bytes(ns, printed, as_float)
    assert passed is False
    assert "returned a float" in message


def test_ffn_error_is_one_sentence(ns, printed):
    def broken(block, X):
        return block.ffn.missing_layer(X)

    passed, message = ffn_bytes(ns, printed, broken)
    assert passed is False
    assert message.startswith("broken raised AttributeError")


def test_ffn_not_callable(ns, printed):
    passed, message = ffn_bytes(ns, printed, "bytes")
    assert passed is False
    assert message == (
        "check_ffn_activation_bytes needs a function, not a str object."
    )


# ------------------------------------------------------ saved tensor bytes


def saved(ns, printed, candidate):
    return run_check(printed, ns["check_saved_bytes"], candidate)


def hooked(record):
    """A my_saved_bytes built on `record(storages, T)` for each saved T."""

    def count(fn, *inputs):
        storages = []

        def pack(T):
            record(storages, T)
            return T

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda T: T):
            fn(*inputs)
        return sum(storages)

    return count


def test_saved_reference_passes(ns, printed):
    passed, message = saved(ns, printed, ns["solution_saved_bytes"])
    assert passed is True
    assert message.startswith("Passes")


def test_saved_starter_reports_none(ns, printed):
    passed, message = saved(ns, printed, ns["my_saved_bytes"])
    assert passed is False
    assert "returned None" in message


def test_saved_elements_not_bytes_fails(ns, printed):
    seen = {}

    def elements(storages, T):
        storage = T.untyped_storage()
        if storage.data_ptr() not in seen:
            seen[storage.data_ptr()] = True
            storages.append(storage.nbytes() // T.element_size())

    passed, message = saved(ns, printed, hooked(elements))
    assert passed is False
    assert "a number of elements" in message


def test_saved_storage_counted_twice_fails(ns, printed):
    def every_time(storages, T):
        storages.append(T.untyped_storage().nbytes())

    passed, message = saved(ns, printed, hooked(every_time))
    assert passed is False
    assert "product of two rows" in message
    assert "twice what is kept" in message
    assert "128" not in message


def test_saved_view_sizes_fail(ns, printed):
    def view_bytes(storages, T):
        storages.append(T.numel() * T.element_size())

    passed, message = saved(ns, printed, hooked(view_bytes))
    assert passed is False
    assert "the rows' own sizes" in message
    assert "whole storage they view" in message
    assert "128" not in message


def test_saved_view_of_each_storage_once_fails(ns, printed):
    # Keyed by storage, but sized by the first view seen: one row.
    seen = set()

    def first_view_bytes(storages, T):
        key = T.untyped_storage().data_ptr()
        if key not in seen:
            seen.add(key)
            storages.append(T.numel() * T.element_size())

    passed, message = saved(ns, printed, hooked(first_view_bytes))
    assert passed is False
    assert "the rows' own sizes" in message
    assert "untyped_storage().nbytes()" in message


def test_saved_keyed_by_the_views_pointer_fails(ns, printed):
    # Each row view starts at its own data_ptr(), so both are counted.
    seen = set()

    def by_view_pointer(storages, T):
        if T.data_ptr() not in seen:
            seen.add(T.data_ptr())
            storages.append(T.untyped_storage().nbytes())

    passed, message = saved(ns, printed, hooked(by_view_pointer))
    assert passed is False
    assert "keyed by untyped_storage().data_ptr()" in message


def test_saved_under_no_grad_fails(ns, printed):
    def no_grad(fn, *inputs):
        storages = []

        def pack(T):
            storages.append(T.untyped_storage().nbytes())
            return T

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda T: T):
            with torch.no_grad():
                fn(*inputs)
        return sum(storages)

    passed, message = saved(ns, printed, no_grad)
    assert passed is False
    assert "not under torch.no_grad()" in message


def test_saved_chapter_function_fails(ns, printed):
    passed, message = saved(ns, printed, ns["saved_bytes"])
    assert passed is False
    assert "the chapter's saved_bytes" in message


def test_saved_call_of_chapter_function_fails(ns, printed):
    # Defined in the chapter's namespace, as a learner's function is.
    exec("def wrapper(fn, *inputs):\n    return saved_bytes(fn, *inputs)", ns)
    passed, message = saved(ns, printed, ns.pop("wrapper"))
    assert passed is False
    assert "calls the chapter's saved_bytes" in message
    # The trap is gone again: the chapter's function is back in place.
    assert ns["saved_bytes"].__name__ == "saved_bytes"


def test_saved_other_wrong_count_fails(ns, printed):
    passed, message = saved(ns, printed, lambda fn, *inputs: 7)
    assert passed is False
    assert "For a sine your 7 bytes are too low" in message
    assert "60" not in message


def test_saved_outside_the_hooks_fails(ns, printed):
    def no_hooks(fn, *inputs):
        fn(*inputs)
        return 0

    passed, message = saved(ns, printed, no_hooks)
    assert passed is False
    assert "counted nothing" in message


def test_saved_float_and_errors_fail(ns, printed):
    passed, message = saved(ns, printed, lambda fn, *inputs: 60.0)
    assert passed is False
    assert "returned a float" in message
    passed, message = saved(ns, printed, lambda fn, *inputs: fn())
    assert passed is False
    assert "raised TypeError" in message
    passed, message = saved(ns, printed, 3)
    assert message == "check_saved_bytes needs a function, not a int object."


# -------------------------------------------------------- key-value cache


def kv(ns, printed, candidate):
    return run_check(printed, ns["check_kv_cache_bytes"], candidate)


def test_kv_reference_passes(ns, printed):
    passed, message = kv(ns, printed, ns["solution_kv_cache_bytes"])
    assert passed is True
    assert message.startswith("Passes")


def test_kv_chapter_formula_passes(ns, printed):
    def from_chapter(B, S, D, blocks, size):
        one = ns["kv_cache_bytes"](B, S, D, size, heads=2, kv_heads=2)
        return blocks * one

    passed, _ = kv(ns, printed, from_chapter)
    assert passed is True


def test_kv_starter_reports_none(ns, printed):
    passed, message = kv(ns, printed, ns["my_kv_cache_bytes"])
    assert passed is False
    assert "returned None" in message


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (lambda B, S, D, L, b: B * S * D * L * b, "half the cache"),
        (lambda B, S, D, L, b: 2 * B * S * D * b, "counted one block"),
        (lambda B, S, D, L, b: 2 * B * S * D * L, "counted elements"),
        (lambda B, S, D, L, b: 2 * B * S * D * L * 4, "4 bytes per element"),
        (lambda B, S, D, L, b: 7, "your 7 bytes are too low"),
        (lambda B, S, D, L, b: 10**6, "bytes are too high"),
        (lambda B, S, D, L, b: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_kv_wrong_answers_fail(ns, printed, wrong, says):
    passed, message = kv(ns, printed, wrong)
    assert passed is False
    assert says in message
