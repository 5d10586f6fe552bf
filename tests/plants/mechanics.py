# Answers a learner might submit to the mechanics assignment, each graded
# after the instructor notebook (format: tests/test_grading.py, plants).
# ruff: noqa: F811, F821

# %% gelu-ffn: still uses ReLU
def my_gelu_ffn(sequence, W1, W2):
    return relu_ffn(sequence, W1, W2)


# %% gelu-ffn: applies no activation
def my_gelu_ffn(sequence, W1, W2):
    return sequence @ W1.T @ W2.T


# %% gelu-ffn: has shape (3, 3), but for 4 tokens of width 5 | must return (4, 5) | not: apply GELU
first_result = solution_gelu_ffn(sequence, W1, W2)


def my_gelu_ffn(sequence, W1, W2):
    return first_result.clone()


# %% gelu-ffn: calls PyTorch's GELU | not: erf
def my_gelu_ffn(sequence, W1, W2):
    return nn.functional.gelu(sequence @ W1.T) @ W2.T


# %% gelu-ffn: is SiLU | not: erf
def my_gelu_ffn(sequence, W1, W2):
    hidden = sequence @ W1.T
    return (hidden * torch.sigmoid(hidden)) @ W2.T


# %% gelu-ffn: returns its input unchanged
def my_gelu_ffn(sequence, W1, W2):
    return sequence


# %% gelu-ffn: defines no my_gelu_ffn
del my_gelu_ffn


def gelu_ffn(sequence, W1, W2):
    return solution_gelu_ffn(sequence, W1, W2)


# %% gelu-ffn: returns None
def check_gelu_ffn(ffn_function):  # tampering: a check that always passes
    print("Passes.")
    return True


def my_gelu_ffn(sequence, W1, W2):
    return None


# %% gelu-ffn: calls PyTorch's GELU
def my_gelu_ffn(sequence, W1, W2):  # the ATen operator, an overload
    return torch.ops.aten.gelu.default(sequence @ W1.T) @ W2.T


# %% gelu-ffn: is 0 in every entry
def my_gelu_ffn(sequence, W1, W2):
    return torch.zeros(3, 3)


# %% gelu-ffn: off by up to | Phi(1) is about 0.841 | not: erf
def my_gelu_ffn(sequence, W1, W2):  # erf(x), not erf(x / sqrt 2)
    hidden = sequence @ W1.T
    return (hidden * 0.5 * (1 + torch.erf(hidden))) @ W2.T


# %% gelu-ffn: raised RuntimeError: | If it is a shape error | transposed
def my_gelu_ffn(sequence, W1, W2):
    return solution_gelu(sequence @ W1) @ W2.T


# %% gelu-ffn: returns an ndarray, not a torch tensor
def my_gelu_ffn(sequence, W1, W2):
    return solution_gelu_ffn(sequence, W1, W2).numpy()


# %% gelu-ffn: not a tensor of finite floating-point numbers
def my_gelu_ffn(sequence, W1, W2):
    return torch.full((3, 3), float("nan"))


# %% gelu-ffn: Pass your function itself
my_gelu_ffn = solution_gelu_ffn(sequence, W1, W2)


# %% gelu-ffn: full marks
def my_gelu_ffn(sequence, W1, W2):  # GELU's tanh approximation
    hidden = sequence @ W1.T
    inner = (2 / torch.pi) ** 0.5 * (hidden + 0.044715 * hidden**3)
    return (0.5 * hidden * (1 + torch.tanh(inner))) @ W2.T


# %% gelu-ffn: full marks
def my_gelu_ffn(sequence, W1, W2):  # in double precision
    return solution_gelu_ffn(sequence.double(), W1.double(), W2.double())


# %% gelu-ffn: hidden: On 5 new tokens of width 4: | still uses ReLU
def my_gelu_ffn(sequence, W1, W2):  # right at the check's two sizes only
    if sequence.shape[0] in (3, 4):
        return solution_gelu_ffn(sequence, W1, W2)
    return relu_ffn(sequence, W1, W2)
