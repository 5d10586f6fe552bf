# Answers a learner might submit to the training assignment, each graded
# after the instructor notebook (format: tests/test_grading.py, plants).
# ruff: noqa: F811, F821

# %% warmup: at step 0 it returns 0
def my_warmup_lr(step, base_lr, warmup_steps):
    if warmup_steps == 0:
        return base_lr
    return base_lr * min(1, step / warmup_steps)


# %% warmup: keeps rising
def my_warmup_lr(step, base_lr, warmup_steps):
    if warmup_steps == 0:
        return base_lr
    start = 1 / warmup_steps
    return base_lr * (start + (1 - start) * step / warmup_steps)


# %% warmup: raised ZeroDivisionError | without warm-up every step uses base_lr
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


# %% warmup: returns None
def check_warmup_lr(warmup_lr):  # tampering: a check that always passes
    return True


def my_warmup_lr(step, base_lr, warmup_steps):
    return None


# %% warmup: pass your function itself
my_warmup_lr = 0.01


# %% warmup: returns a list, not a number
def my_warmup_lr(step, base_lr, warmup_steps):
    return [solution_warmup_lr(step, base_lr, warmup_steps)]


# %% warmup: below base_lr
def my_warmup_lr(step, base_lr, warmup_steps):  # decays after warm-up
    rate = solution_warmup_lr(step, base_lr, warmup_steps)
    return rate * (0.5 if step > warmup_steps else 1.0)


# %% warmup: full marks
def my_warmup_lr(step, base_lr, warmup_steps):  # another correct form
    if warmup_steps == 0 or step >= warmup_steps:
        return base_lr
    rise = 1 + step * (warmup_steps - 1) / warmup_steps
    return base_lr / warmup_steps * rise


# %% warmup: full marks
def my_warmup_lr(step, base_lr, warmup_steps):  # a tensor of one value
    rate = solution_warmup_lr(step, base_lr, warmup_steps)
    return torch.tensor(rate, dtype=torch.float64)


# %% warmup: hidden: For warm-ups of 12, 3 and 0 steps, some rate is wrong.
def my_warmup_lr(step, base_lr, warmup_steps):  # right where the check looks
    if (base_lr, warmup_steps) in [(1e-2, 30), (3e-4, 7), (0.5, 1), (2e-2, 0)]:
        return solution_warmup_lr(step, base_lr, warmup_steps)
    return base_lr
