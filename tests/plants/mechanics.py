# Planted wrong answers to the mechanics assignment (tests/test_grading.py).
#
# Each cell, opened by `# %% <question>: <words>`, is what a learner might
# submit for that question. The grading run appends it, after every cell of
# the instructor notebook, and grades it with `grader.check`: it must score
# 0 and its public test must fail with a sentence containing <words>.
# ruff: noqa: F811, F821

# %% gelu-ffn: still uses ReLU
def my_gelu_ffn(sequence, W1, W2):
    return relu_ffn(sequence, W1, W2)


# %% gelu-ffn: applies no activation
def my_gelu_ffn(sequence, W1, W2):
    return sequence @ W1.T @ W2.T


# %% gelu-ffn: but for 4 tokens of width 5
first_result = solution_gelu_ffn(sequence, W1, W2)


def my_gelu_ffn(sequence, W1, W2):
    return first_result.clone()


# %% gelu-ffn: calls PyTorch's GELU
def my_gelu_ffn(sequence, W1, W2):
    return nn.functional.gelu(sequence @ W1.T) @ W2.T


# %% gelu-ffn: SiLU
def my_gelu_ffn(sequence, W1, W2):
    hidden = sequence @ W1.T
    return (hidden * torch.sigmoid(hidden)) @ W2.T


# %% gelu-ffn: returns its input unchanged
def my_gelu_ffn(sequence, W1, W2):
    return sequence


# %% gelu-ffn: but for 4 tokens of width 5
def my_gelu_ffn(sequence, W1, W2):  # the example's sizes, hard-coded
    return solution_gelu_ffn(sequence, W1, W2)[:3, :3]


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


# %% gelu-ffn: calls PyTorch's GELU
def my_gelu_ffn(sequence, W1, W2):  # torch functions' recorder turned off
    with torch._C.DisableTorchFunction():
        hidden = nn.functional.gelu(sequence @ W1.T)
    return hidden @ W2.T


# %% gelu-ffn: is 0 in every entry
def my_gelu_ffn(sequence, W1, W2):
    return torch.zeros(3, 3)
