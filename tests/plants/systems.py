# Planted wrong answers to the systems assignment (tests/test_grading.py).
#
# Each cell, opened by `# %% <question>: <words>`, is what a learner might
# submit for that question. The grading run appends it, after every cell of
# the instructor notebook, and grades it with `grader.check`: it must score
# 0 and its public test must fail with a sentence containing <words>.
# ruff: noqa: E402, F811, F821

# %% saved-bytes: the rows' own sizes
def my_saved_bytes(fn, *inputs):
    sizes = []

    def pack(T):
        sizes.append(T.numel() * T.element_size())  # every time, views too
        return T

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda T: T):
        fn(*inputs)
    return sum(sizes)


# %% saved-bytes: a number of elements
def my_saved_bytes(fn, *inputs):
    sizes = {}

    def pack(T):
        sizes[T.untyped_storage().data_ptr()] = T.numel()
        return T

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda T: T):
        fn(*inputs)
    return sum(sizes.values())


# %% saved-bytes: you counted nothing
def my_saved_bytes(fn, *inputs):
    return 0


# %% saved-bytes: That is the chapter's saved_bytes
my_saved_bytes = saved_bytes


# %% saved-bytes: calls the chapter's saved_bytes
def my_saved_bytes(fn, *inputs):
    return saved_bytes(fn, *inputs)


# %% ffn-bytes: formulas give for config.ff_width
def my_ffn_activation_bytes(block, X):
    B, S, D = X.shape
    return B * S * block.config.ff_width * X.element_size()


# %% kv-cache: you counted one block
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return 2 * B * S * D * bytes_per_element


# %% kv-cache: you counted half the cache
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return blocks * B * S * D * bytes_per_element


# %% cached-offset: Offset is 0
def my_next_output(block, token, cache):
    X_new = token + sinusoidal(0, 1, block.config.width)
    return cached_step(block, X_new, cache)[0]


# %% cached-offset: Offset is 4
def my_next_output(block, token, cache):
    X_new = token + sinusoidal(cache.length - 1, 1, block.config.width)
    return cached_step(block, X_new, cache)[0]


# %% cached-offset: no positional encoding
def my_next_output(block, token, cache):
    return cached_step(block, token, cache)[0]


# %% ffn-bytes: formulas give for config.ff_width
def my_ffn_activation_bytes(block, X):
    B, S, D = X.shape
    return B * S * (2 * block.config.ff_width + D) * X.element_size()


# %% ffn-bytes: activation's output alone
def my_ffn_activation_bytes(block, X):
    return measure_activations(block, X)["ffn_hidden"]


def ffn_outputs(block, X):
    """What the FFN's three layers return, by forward hooks."""
    seen = []
    parts = [block.ffn.up, block.ffn.act, block.ffn.down]
    handles = [
        part.register_forward_hook(lambda m, i, out: seen.append(out))
        for part in parts
    ]
    block(X)
    for handle in handles:
        handle.remove()
    return seen


# %% ffn-bytes: number of elements
def my_ffn_activation_bytes(block, X):
    return sum(T.numel() for T in ffn_outputs(block, X))


# %% ffn-bytes: Off by a factor of 2
def my_ffn_activation_bytes(block, X):
    return sum(T.numel() for T in ffn_outputs(block, X)) * 2


# %% cached-offset: With the block of width 10: Offset is 5
def my_next_output(block, token, cache):  # the example's cache length
    X_new = token + sinusoidal(5, 1, block.config.width)
    return cached_step(block, X_new, cache)[0]


# %% cached-offset: returned None
def check_cached_offset(fn):  # tampering
    return True


def my_next_output(block, token, cache):
    return None


# %% kv-cache: D=10, 2 blocks, bfloat16 your
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return 2 * blocks * B * S * 8 * bytes_per_element  # the example's D


# %% kv-cache: returned a float
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return 2.0 * blocks * B * S * D * bytes_per_element


# %% kv-cache: you counted 4 bytes per element
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return 2 * blocks * B * S * D * 4  # always float32


# %% kv-cache: returned None
check_kv_cache_bytes = lambda fn: True  # noqa: E731 (tampering)


def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return None


# %% ffn-bytes: did you use 4 bytes per element for bfloat16
def my_ffn_activation_bytes(block, X):
    return sum(T.numel() for T in ffn_outputs(block, X)) * 4


# %% ffn-bytes: returned None
def check_ffn_activation_bytes(fn):  # tampering
    return True


def my_ffn_activation_bytes(block, X):
    return None


# %% saved-bytes: calls the chapter's saved_bytes
_count = saved_bytes  # an alias


def my_saved_bytes(fn, *inputs):
    return _count(fn, *inputs)


# %% saved-bytes: calls the chapter's saved_bytes
import functools

my_saved_bytes = functools.partial(saved_bytes)


# %% saved-bytes: That is the chapter's saved_bytes
def check_saved_bytes(fn):  # tampering
    return True


my_saved_bytes = saved_bytes


# %% saved-bytes: you counted nothing
def saved_bytes(fn, *inputs, exclude=()):  # tampering: the chapter's own
    return 0


def my_saved_bytes(fn, *inputs):
    return 0


# %% saved-bytes: the inputs' storages too
def my_saved_bytes(fn, *inputs):
    sizes = {
        T.untyped_storage().data_ptr(): T.untyped_storage().nbytes()
        for T in inputs
    }

    def pack(T):
        sizes[T.untyped_storage().data_ptr()] = T.untyped_storage().nbytes()
        return T

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda T: T):
        fn(*inputs)
    return sum(sizes.values())


class Agreeable(int):  # tampering: an int equal to anything
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


# %% kv-cache: you counted elements
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return Agreeable(2 * blocks * B * S * D)


# %% ffn-bytes: this block's activation returns float32
def my_ffn_activation_bytes(block, X):  # from the module sizes, not measured
    B, S, D = X.shape
    return B * S * (2 * block.ffn.up.out_features + D) * X.element_size()
