# Answers a learner might submit to the systems assignment, each graded
# after the instructor notebook (format: tests/test_grading.py, plants).
# ruff: noqa: E402, F811, F821

# %% saved-bytes: the rows' own sizes | whole storage they view | untyped_storage().nbytes() | not: 128
def packed(fn, inputs):
    """Every tensor the pack hook receives while fn runs."""
    seen = []

    def pack(T):
        seen.append(T)
        return T

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda T: T):
        fn(*inputs)
    return seen


def my_saved_bytes(fn, *inputs):  # every tensor's own size, views too
    return sum(T.numel() * T.element_size() for T in packed(fn, inputs))


# %% saved-bytes: a number of elements
def my_saved_bytes(fn, *inputs):
    saved = packed(fn, inputs)
    return sum(
        {T.untyped_storage().data_ptr(): T.numel() for T in saved}.values()
    )


# %% ffn-bytes: formulas give for config.ff_width | measure the tensors the forward pass produces
def my_ffn_activation_bytes(block, X):
    B, S, D = X.shape
    return B * S * block.config.ff_width * X.element_size()


# %% kv-cache: you counted one block
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return 2 * B * S * D * bytes_per_element


# %% kv-cache: you counted half the cache
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return blocks * B * S * D * bytes_per_element


# %% cached-offset: Offset is 0, which treats the token as | not: 5
def my_next_output(block, token, cache):
    X_new = token + sinusoidal(0, 1, block.config.width)
    return cached_step(block, X_new, cache)[0]


# %% cached-offset: Offset is 4, which is not where | not: cache.length | not: 5
def my_next_output(block, token, cache):
    X_new = token + sinusoidal(cache.length - 1, 1, block.config.width)
    return cached_step(block, X_new, cache)[0]


# %% cached-offset: no positional encoding
def my_next_output(block, token, cache):
    return cached_step(block, token, cache)[0]


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


# %% ffn-bytes: Off by a factor of 2 for B=2, S=3, float32 | 2 bytes per element for float32
def my_ffn_activation_bytes(block, X):
    return sum(T.numel() for T in ffn_outputs(block, X)) * 2


# %% cached-offset: With the block of width 10: Offset is 5
def my_next_output(block, token, cache):  # the example's cache length
    X_new = token + sinusoidal(5, 1, block.config.width)
    return cached_step(block, X_new, cache)[0]


# %% cached-offset: full marks
def my_next_output(block, token, cache):  # cached_step's pair, returned
    X_new = token + sinusoidal(cache.length, 1, block.config.width)
    return cached_step(block, X_new, cache)


torch.manual_seed(123)
drawn = torch.rand(3)
torch.manual_seed(123)
check_cached_offset(solution_cached_offset)  # before a plant replaces it
assert torch.equal(torch.rand(3), drawn)  # the check left the seed alone


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
import functools

my_saved_bytes = functools.partial(saved_bytes)


# %% saved-bytes: product of two rows | twice what is kept | keyed by untyped_storage().data_ptr() | not: 128
def my_saved_bytes(fn, *inputs):  # keyed by the view's own start
    saved = packed(fn, inputs)
    sizes = {T.data_ptr(): T.untyped_storage().nbytes() for T in saved}
    return sum(sizes.values())


# %% saved-bytes: That is the chapter's saved_bytes
def check_saved_bytes(fn):  # tampering
    return True


my_saved_bytes = saved_bytes


# %% saved-bytes: you counted nothing | not under torch.no_grad()
def saved_bytes(fn, *inputs, exclude=()):  # tampering: the chapter's own
    return 0


def my_saved_bytes(fn, *inputs):
    return 0


# %% saved-bytes: the inputs' storages too
def my_saved_bytes(fn, *inputs):
    storages = [T.untyped_storage() for T in [*inputs, *packed(fn, inputs)]]
    return sum({S.data_ptr(): S.nbytes() for S in storages}.values())


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


# %% saved-bytes: For a sine your 7 bytes are too low | not: 60
def my_saved_bytes(fn, *inputs):
    return 7


# %% saved-bytes: returned a float
def my_saved_bytes(fn, *inputs):
    return 60.0


# %% saved-bytes: my_saved_bytes raised TypeError
def my_saved_bytes(fn, *inputs):
    return fn()


# %% saved-bytes: returned None
def my_saved_bytes(fn, *inputs):
    return None


# %% saved-bytes: check_saved_bytes needs a function, not a int object.
my_saved_bytes = 3


# %% ffn-bytes: only the FFN's output
def my_ffn_activation_bytes(block, X):
    Y = block(X)  # (B, S, D), not the hidden tensor
    return Y.numel() * Y.element_size()


# %% ffn-bytes: your 7 bytes are too low | not: 1,152 | not: 1152
def my_ffn_activation_bytes(block, X):
    return 7


# %% ffn-bytes: returned a float
def my_ffn_activation_bytes(block, X):
    return float(X.shape[0] * X.shape[1] * 24 * X.element_size())


# %% ffn-bytes: my_ffn_activation_bytes raised AttributeError
def my_ffn_activation_bytes(block, X):
    return block.ffn.missing_layer(X)


# %% ffn-bytes: check_ffn_activation_bytes needs a function, not a str object.
my_ffn_activation_bytes = "bytes"


# %% kv-cache: bytes are too high
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return 10**6


# %% kv-cache: raised ZeroDivisionError
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):
    return 1 / 0


# %% kv-cache: full marks
def my_kv_cache_bytes(B, S, D, blocks, bytes_per_element):  # the chapter's
    one = kv_cache_bytes(B, S, D, bytes_per_element, heads=2, kv_heads=2)
    return blocks * one


# %% cached-offset: matches no position
def my_next_output(block, token, cache):  # the cache left out
    return block(token + sinusoidal(cache.length, 1, block.config.width))


# %% cached-offset: The output has shape (2, 2, 5, 4) | but one new token needs (2, 1, 8)
def my_next_output(block, token, cache):
    return cache.keys


# %% cached-offset: returned a list
def my_next_output(block, token, cache):
    return [0.0]


# %% cached-offset: my_next_output raised RuntimeError
def my_next_output(block, token, cache):
    padded = torch.cat([token, token], dim=-1)  # (B, 1, 2D)
    return cached_step(block, padded, cache)[0]


# %% cached-offset: check_cached_offset needs a function, not a int object.
my_next_output = 5
