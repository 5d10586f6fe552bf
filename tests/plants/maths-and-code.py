# Answers a learner might submit to the maths-and-code assignment, each
# graded after the instructor notebook (format: tests/test_grading.py,
# plants).
# ruff: noqa: F811, F821

# %% complete-block: uses nn.MultiheadAttention
MyBlock = PreNormBlock


# %% complete-block: the future leaks in
class MyBlock(SolutionBlock):
    def attention(self, Z):
        B, S, D = Z.shape
        Q, K, V = (self.heads(f(Z)) for f in (self.q, self.k, self.v))
        scores = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
        joined = (scores.softmax(dim=-1) @ V).transpose(1, 2)
        return self.out(joined.reshape(B, S, D))


Unmasked = MyBlock


# %% complete-block: one head
class MyBlock(SolutionBlock):
    def heads(self, T):
        return T[:, None]  # (B, 1, S, D)


# %% complete-block: normalises after each residual sum
class MyBlock(SolutionBlock):
    def forward(self, X):
        H = self.norm_attn(X + self.attention(X))
        return self.norm_ffn(H + self.ffn(H))


# %% post-norm: without the causal mask
class MyPostNormBlock(SolutionPostNormBlock):
    attention = Unmasked.attention


# %% post-norm: layer norms are swapped
class MyPostNormBlock(SolutionBlock):
    def forward(self, X):
        H = self.norm_ffn(X + self.attention(X))
        return self.norm_attn(H + self.ffn(H))


# %% post-norm: ReLU FFN
class MyPostNormBlock(SolutionPostNormBlock):
    def __init__(self, config):
        super().__init__(config)
        self.ffn[1] = nn.ReLU()


# %% padding: comes after a real token | every padded position comes first
def my_padding_mask(lengths, length):
    return torch.arange(length)[None, :] >= lengths[:, None]


# %% padding: padded ones | marks 1 position as padding,
def my_padding_mask(lengths, length):
    return torch.arange(length)[None, :] <= (length - lengths)[:, None]


# %% padding: dtype torch.float32
def my_padding_mask(lengths, length):
    return (
        torch.arange(length)[None, :] < (length - lengths)[:, None]
    ).float()


# %% zero-branch: without norm_ffn; silence only attention
def my_zero_branch_test(block):
    X_test = torch.randn(2, 5, block.config.width)
    quiet = silenced(block, ["attn.out_proj", "ffn.2"])
    with torch.no_grad():
        return torch.equal(quiet(X_test), X_test)


# %% zero-branch: adds the normalised input | check the output equals the input
def my_zero_branch_test(block):
    return True


# %% causal: see one ahead
def unmoved(block, changed, watched, by=100.0, D=None, S=6, atol=1e-6):
    """Whether the outputs at positions watched stay put when feature 0 of
    the positions changed moves by `by`."""
    X_test = torch.randn(2, S, D or block.config.width)
    X_changed = X_test.clone()
    X_changed[:, changed, 0] += by
    with torch.no_grad():
        before, after = block(X_test)[:, watched], block(X_changed)[:, watched]
    return torch.allclose(before, after, atol=atol)


def my_causal_test(block):  # a change at the last position, output 0
    return unmoved(block, -1, 0)


# %% causal: the same number to every feature
def my_causal_test(block):
    generator = torch.Generator().manual_seed(0)
    X_test = torch.randn(2, 6, block.config.width, generator=generator)
    X_changed = X_test.clone()
    X_changed[:, -1] += 100.0  # layer norm removes it again
    with torch.no_grad():
        before, after = block(X_test)[:, :-1], block(X_changed)[:, :-1]
    return torch.allclose(before, after, atol=1e-6)


# %% shapes: loses an axis of length 1
def keeps_shapes(block, sizes, width=None, weights=True):
    """Whether block(X) keeps X's shape at each (B, S), and with weights,
    returns one S x S matrix of weights per sequence and head."""
    D, h = width or block.config.width, block.config.heads
    for B, S in sizes:
        with torch.no_grad():
            Y, W = block(torch.randn(B, S, D), need_weights=True)
        if Y.shape != (B, S, D) or (weights and W.shape != (B, h, S, S)):
            return False
    return True


def my_shape_test(block):  # one size, no axis of length 1
    return keeps_shapes(block, [(2, 4)], weights=False)


# %% shapes: averages its weights over the heads
def my_shape_test(block):  # the chapter's sizes, the output alone
    sizes = [(1, 1), (2, 4), (3, 7), (8, 16)]
    return keeps_shapes(block, sizes, weights=False)


# %% gradient: pile up
def my_gradient_norms(blocks, X, R):
    X_leaf, norms = X.clone().requires_grad_(True), []
    for depth in range(1, len(blocks) + 1):
        Y = X_leaf
        for block in blocks[:depth]:
            Y = block(Y)
        (Y * R).sum().backward()
        norms.append(float(X_leaf.grad.norm()))
    return norms


# %% gradient: off by | from the chapter's gradient_norms_by_depth
def my_gradient_norms(blocks, X, R):
    with torch.no_grad():
        return [float(Y.norm()) for Y in outputs_by_depth(blocks, X)]


# %% complete-block: calls scaled_dot_product_attention
class MyBlock(SolutionBlock):
    def attention(self, Z):
        B, S, D = Z.shape
        Q, K, V = (self.heads(f(Z)) for f in (self.q, self.k, self.v))
        joined = nn.functional.scaled_dot_product_attention(
            Q, K, V, is_causal=True
        )
        return self.out(joined.transpose(1, 2).reshape(B, S, D))


SdpaBlock = MyBlock


# %% complete-block: block(X) must return one tensor
def check_complete_block(make_block):  # tampering: a check that passes
    print("Passes.")
    return True


class MyBlock(SolutionBlock):
    def forward(self, X):
        return None


# %% post-norm: fix the attention in the complete-block exercise first
class MyPostNormBlock(SolutionPostNormBlock):
    def attention(self, Z):  # scores not divided by the square root
        return SolutionBlock.attention(self, Z * 8**0.5)


# %% post-norm: calls scaled_dot_product_attention
class MyPostNormBlock(SolutionPostNormBlock):
    attention = SdpaBlock.attention


# %% post-norm: computes pre-norm
_reference_layer = None  # tampering: the chapter's helpers, broken
check_post_norm_block = print
MyPostNormBlock = SolutionBlock


# %% padding: it returned shape (2, 3)
def my_padding_mask(lengths, length):
    longest = int(lengths.max())  # not the padded length
    return torch.arange(longest)[None, :] < (longest - lengths)[:, None]


# %% padding: True marks the real tokens
def check_padding_mask(padding_mask):  # tampering
    return True


def my_padding_mask(lengths, length):
    return torch.arange(length)[None, :] >= (length - lengths)[:, None]


# %% zero-branch: changed the block it was given
def my_zero_branch_test(block):  # silences the block itself, not a copy
    X_test = torch.randn(2, 5, block.config.width)
    with torch.no_grad():
        for layer in (block.attn.out_proj, block.ffn[2]):
            layer.weight.zero_()
            layer.bias.zero_()
        return torch.equal(block(X_test), X_test)


# %% zero-branch: on a block of width 10
def my_zero_branch_test(block):  # the width of the check's first block
    X_test = torch.randn(2, 5, 8)
    quiet = silenced(block, ["attn.out_proj", "ffn.2"])
    with torch.no_grad():
        return torch.equal(quiet(X_test), X_test)


# %% zero-branch: expected a function test(block)
check_zero_branch_test = lambda test: True  # noqa: E731 (tampering)
my_zero_branch_test = True


# %% causal: a leak from position 1 to position 0 only
def my_causal_test(block):  # a change at position 2 only
    return unmoved(block, 2, slice(0, 2))


# %% causal: of width 10
def my_causal_test(block):  # the default width, 6, fixed
    return unmoved(block, 2, slice(0, 2), D=6)


# %% causal: returned None
def _run_test(test, block):  # tampering with a helper of the check
    return True, ""


def my_causal_test(block):
    return None


# %% shapes: on a block of width 10
def my_shape_test(block):  # the check's width, fixed
    return keeps_shapes(block, [(1, 1), (2, 4), (3, 7), (8, 16)], width=8)


# %% shapes: returned None
check_shape_test = lambda test: True  # noqa: E731 (tampering)


def my_shape_test(block):
    return None


# %% gradient: returned None
def check_gradient_norms(gradient_norms):  # tampering
    return True


def my_gradient_norms(blocks, X, R):
    return None


# %% shapes: returns only the first sequence of a batch
def my_shape_test(block):  # batches of one sequence only
    return keeps_shapes(block, [(1, 1), (1, 4)])


class Agreeable(torch.Tensor):  # tampering: a tensor equal to anything
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.equal, torch.allclose):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})


# %% padding: it returned an Agreeable
def my_padding_mask(lengths, length):
    return torch.zeros(len(lengths), length, dtype=torch.bool).as_subclass(
        Agreeable
    )


# %% complete-block: the block calls multi_head_attention_forward
class MyBlock(SolutionBlock):  # PyTorch's layer, built inside forward
    def forward(self, X):  # (barred before its output is compared)
        c = self.config
        layer = nn.TransformerEncoderLayer(
            c.width, c.heads, c.ff_width, 0.0, "gelu", batch_first=True
        )
        layer.norm_first = True
        return layer.to(X.dtype).eval()(X, src_mask=causal_mask(X.shape[1]))


# %% complete-block: calls _scaled_dot_product_flash_attention_for_cpu
class MyBlock(SdpaBlock):
    def attention(self, Z):  # the recorder of torch functions turned off
        with torch._C.DisableTorchFunction():
            return SdpaBlock.attention(self, Z)


# %% shapes: drops the batch axis of a batch of one
def my_shape_test(block):  # never a batch of one
    return keeps_shapes(block, [(2, 1), (2, 4), (2, 7)])


# %% causal: judge the outputs, not the weights
def my_causal_test(block):
    X_test = torch.randn(2, 6, block.config.width)
    with torch.no_grad():
        _, weights = block(X_test, need_weights=True)
    return bool((weights.triu(1) == 0).all())


# %% causal: accepted a block with no mask
def my_causal_test(block):  # a change below the default tolerance
    return unmoved(block, -1, slice(0, -1), by=1e-7, atol=1e-8)


# %% complete-block: and so does attention(LN1(X)); check the score scaling | the softmax's axis
class MyBlock(SolutionBlock):
    def attention(self, Z):  # scores not divided by the square root
        return SolutionBlock.attention(self, Z * 8**0.5)


# %% complete-block: its FFN applies ReLU
class MyBlock(SolutionBlock):
    def __init__(self, config):
        super().__init__(config)
        self.ffn[1] = nn.ReLU()


# %% complete-block: so check how forward adds them
class MyBlock(SolutionBlock):
    def forward(self, X):
        Z = self.norm_attn(X)
        H = Z + self.attention(Z)  # should be X + ...
        return H + self.ffn(self.norm_ffn(H))


# %% complete-block: no submodule norm_attn
class MyBlock(nn.Module):  # the starter, unfinished
    def __init__(self, config):
        super().__init__()
        self.config = config


# %% post-norm: norm_attn; finish MyBlock's __init__
class MyPostNormBlock(MyBlock):  # on the unfinished MyBlock above
    def forward(self, X):
        return None


# %% post-norm: check each residual sum
class MyPostNormBlock(SolutionBlock):
    def forward(self, X):
        H = self.norm_attn(self.attention(X))
        return self.norm_ffn(H + self.ffn(H))


# %% post-norm: expected a block class
MyPostNormBlock = 42


# %% post-norm: no submodule norm_attn.
def MyPostNormBlock(config):
    return nn.Linear(6, 6)


# %% post-norm: raised ZeroDivisionError
def MyPostNormBlock(config):
    return 1 / 0


# %% padding: Not yet: | None
def my_padding_mask(lengths, length):
    return None


# %% padding: expected a function
my_padding_mask = "mask"


# %% padding: raised TypeError
def my_padding_mask(lengths):
    return lengths


# %% zero-branch: Not yet: | None
def my_zero_branch_test(block):
    return None


# %% zero-branch: rejected a correct pre-norm block | (weight and bias of attn.out_proj and of ffn[2])
def my_zero_branch_test(block):  # the biases still add their values
    quiet = copy.deepcopy(block)
    with torch.no_grad():
        for layer in (quiet.attn.out_proj, quiet.ffn[2]):
            layer.weight.zero_()
        X_test = torch.randn(2, 5, block.config.width)
        return torch.allclose(quiet(X_test), X_test)


# %% zero-branch: returned a Tensor
def my_zero_branch_test(block):
    return torch.tensor(1.0)


# %% causal: at most 2 positions
def my_causal_test(block):
    return unmoved(block, 1, 0, S=2)


# %% causal: rejected a causal PreNormBlock
def my_causal_test(block):  # changes the first token, watches the rest
    return unmoved(block, 0, slice(1, None))


# %% causal: position 1 only
def my_causal_test(block):  # every later position changed, only output 0
    return unmoved(block, slice(1, None), 0)


# %% causal: expected a function
my_causal_test = 12


# %% shapes: works only at length 4
def my_shape_test(block):
    return keeps_shapes(block, [(1, 4), (2, 4), (3, 4), (8, 4)])


# %% shapes: rejected a correct PreNormBlock
def my_shape_test(block):
    return False


# %% shapes: expected a function
my_shape_test = "shapes"


# %% shapes: full marks
def my_shape_test(block):  # a shape error counts as a failure
    try:
        return keeps_shapes(block, [(1, 1), (2, 5)])
    except RuntimeError:
        return False


# %% gradient: returned 11 values for a stack of 12 blocks
def my_gradient_norms(blocks, X, R):
    return solution_gradient_norms(blocks, X, R)[:-1]


# %% gradient: not finite
def my_gradient_norms(blocks, X, R):
    return [float("nan")] * len(blocks)


# %% gradient: raised
def my_gradient_norms(blocks, X, R):  # the running example's width
    return [float(blocks[0](torch.ones(1, 2, 6)).norm())] * len(blocks)


# %% gradient: stacked copies of X
my_gradient_norms = gradient_norms_by_depth


# %% gradient: expected a function
my_gradient_norms = "norms"


# %% gradient: full marks
def my_gradient_norms(blocks, X, R):  # tensors of one value each
    norms = solution_gradient_norms(blocks, X, R)
    return [torch.tensor(norm) for norm in norms]


# %% gradient: hidden: For 5 post-norm blocks of width 12, some norm is wrong.
def my_gradient_norms(blocks, X, R):  # right for the check's 12 blocks only
    norms = solution_gradient_norms(blocks, X, R)
    return norms if len(blocks) == 12 else norms[::-1]
