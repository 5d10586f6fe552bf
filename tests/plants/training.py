# Planted wrong answers to the training assignment (tests/test_grading.py).
#
# Each cell, opened by `# %% <question>: <words>`, is what a learner might
# submit for that question. The grading run appends it, after every cell of
# the instructor notebook, and grades it with `grader.check`: it must score
# 0 and its public test must fail with a sentence containing <words>.
# ruff: noqa: F811, F821

# %% warmup: at step 0 it returns 0
def my_warmup_lr(step, base_lr, warmup_steps):
    if warmup_steps == 0:
        return base_lr
    return base_lr * min(1, step / warmup_steps)


# %% warmup: one step early
def my_warmup_lr(step, base_lr, warmup_steps):
    if warmup_steps == 0:
        return base_lr
    return base_lr * min(1, (step + 1) / warmup_steps)


# %% warmup: keeps rising
def my_warmup_lr(step, base_lr, warmup_steps):
    if warmup_steps == 0:
        return base_lr
    start = 1 / warmup_steps
    return base_lr * (start + (1 - start) * step / warmup_steps)


# %% warmup: without warm-up every step uses base_lr
def my_warmup_lr(step, base_lr, warmup_steps):
    start = 1 / warmup_steps
    done = min(step, warmup_steps) / warmup_steps
    return base_lr * (start + (1 - start) * done)


# %% warmup: with base_lr 0.0003 and warmup_steps 7
def my_warmup_lr(step, base_lr, warmup_steps):
    # Hard-coded for the first setting the check happens to try.
    start = 1 / 30
    return 0.01 * (start + (1 - start) * min(step, 30) / 30)


# %% warmup: reaches base_lr at step 29, one step early
def my_warmup_lr(step, base_lr, warmup_steps):  # a float32 tensor, +1 slip
    if warmup_steps == 0:
        return base_lr
    rate = base_lr * min(1, (step + 1) / warmup_steps)
    return torch.tensor([rate], dtype=torch.float32)
