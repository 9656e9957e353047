"""Exercise checkers for notebook 10, training a ViT.

Each exercise asks for a prediction, an explanation or a bug before the cell that shows the answer; the right
values come from the same code the notebook runs (:func:`vitcourse.train.param_groups`,
:func:`vitcourse.train.lr_factor`) or, for the loss, from the natural logarithm. Few-option questions come with a second check (a prediction as a number,
or a count), so that a guess does not pass. Every unexplained wrong
answer climbs the ladder of :mod:`vitcourse.check._core`: a nudge (which idea), then a section to reread.
"""

from __future__ import annotations

import functools
import math
import warnings

from .. import train
from ._core import (
    Verdict,
    float_answer,
    int_answer,
    never_raises,
    reread,
    right,
    say,
    unexplained,
)

__all__ = [
    "train_step",
    "stuck_learning_rate",
    "schedule_zero_step",
    "decay_choice",
    "zero_table_accuracy",
    "schedule_bug_line",
]


#: Exercise 10.1's model: the default ViT, with its learned position table.
_DEFAULT = train.TrainConfig()


#: Exercise 10.1's five tensors, by letter.
_DECAY_TENSORS = {
    "a": "patch_embed.proj.weight",
    "b": "blocks.0.attn.qkv.bias",
    "c": "blocks.0.norm1.weight",
    "d": "blocks.0.mlp.fc1.weight",
    "e": "pos_embed",
}


def _decayed_letters() -> str:
    """The letters of Exercise 10.1 whose tensor is in the weight-decay group of train.param_groups."""
    model = train.build_model(_DEFAULT)
    decayed = {id(p) for p in train.param_groups(model, _DEFAULT.weight_decay)[0]["params"]}
    named = dict(model.named_parameters())
    return "".join(k for k, name in _DECAY_TENSORS.items() if id(named[name]) in decayed)


@never_raises
def decay_choice(answer: object) -> Verdict:
    """Exercise 10.1, the choice: which of five tensors of the default ViT (learned position table) AdamW should
    pull towards 0, as a string of letters such as ``"bd"`` (:func:`decay_reason` checks the reason)."""
    what = "the tensors that take weight decay"
    options = sorted(_DECAY_TENSORS)
    if answer is None:
        return say(
            False, f"{what}: the answer is still None; replace None with a string of letters, e.g. 'bd'."
        )
    if isinstance(answer, list | tuple | set) and all(isinstance(a, str) for a in answer):
        answer = "".join(answer)
    if not isinstance(answer, str):
        return say(False, f"{what}: expected a string of the letters {options}, got {type(answer).__name__}.")
    letters = [c for c in answer.lower() if c not in " ,;+&'\"-"]
    if not letters or any(c not in _DECAY_TENSORS for c in letters):
        return say(False, f"{what}: {answer!r} is not a string made of the letters {options}.")
    chosen = set(letters)
    expected = set(_decayed_letters())
    if chosen == expected:
        return right(what)
    return unexplained(
        what,
        f"{answer!r} is not it.",
        nudge="Ask both questions of each tensor: does it multiply the input, and is 0 the setting it would keep "
        "with nothing to learn? Notebook 06 says what a LayerNorm's scale and shift start as.",
        pointer=reread("The optimiser: AdamW and weight decay"),
    )


@never_raises
def zero_table_accuracy(answer: object) -> Verdict:
    """Exercise 10.1, the prediction: the held-out accuracy a ViT with its position table held at zeros can reach
    on the scramble task. A scene and its scramble then give the prediction token the same tokens in another
    order, so the model labels both alike and is right on exactly one of each pair."""
    return float_answer(
        answer,
        0.5,
        "the held-out accuracy with a table of zeros",
        nudge="With the table at 0, what is left that differs between a scene and its scramble? Notebook 03 "
        "showed what the prediction token's output does when the patch tokens are reordered.",
        wrong=(
            (
                1.0,
                "that is what a model that sees the blocks' order could reach; ask what it sees without the table.",
            ),
            (0.96, "that is what the runs with a table reach; ask what the model sees without it."),
            (
                0.0,
                "a model wrong on every image would be right on every one with its answers swapped: it would "
                "know the task.",
            ),
        ),
        pointer=reread("The optimiser: AdamW and weight decay"),
    )


#: Exercise 10.3: the progress of line 2 forgets to subtract the warm-up (the other lines match the formula).
_BUGGY_LINE = 2


@never_raises
def schedule_bug_line(answer: object) -> Verdict:
    """Exercise 10.3, the line: which of the four numbered lines (0 to 3) of the buggy schedule holds the bug.

    The four lines are a few-option question: every wrong line gets the same hint ladder, never a diagnosis of
    its own, so that trying the lines one by one does not find the bug by elimination (see
    :func:`vitcourse.check._core.choice_answer`); :func:`schedule_zero_step` grades the reasoning."""
    return int_answer(
        answer,
        _BUGGY_LINE,
        "the line of the schedule with the bug",
        nudge="Compare each line with the formula of the schedule, branch by branch.",
        wrong={4: "the lines count from 0: there is no line 4."},
        pointer=reread("The schedule and the loop"),
    )


#: Exercise 10.3's run: 200 steps with a 15-step warm-up; the buggy progress step / (steps - warmup) reaches 1,
#: and the rate 0, at step steps - warmup.
_BUG_STEPS, _BUG_WARMUP = 200, 15


@never_raises
def schedule_zero_step(answer: object) -> Verdict:
    """Exercise 10.3, the number: the first step at which the buggy schedule's learning rate is 0."""
    return int_answer(
        answer,
        _BUG_STEPS - _BUG_WARMUP,
        "the first step where the buggy rate is 0",
        nudge="The rate is 0 where the cosine term is at its lowest: find the step where the buggy function, as "
        "written, gets there.",
        wrong={
            _BUG_STEPS: "that is where the formula's rate would reach 0, one step after the run; the buggy function "
            "runs on another clock.",
            _BUG_STEPS - 1: "that is the run's last step; the buggy function runs on another clock.",
            _BUG_STEPS
            - 2 * _BUG_WARMUP: "that subtracts the warm-up twice; follow the buggy function as written.",
        },
        pointer=reread("The schedule and the loop"),
    )


#: Exercise 10.2's run: a short, small run on the CPU, long enough that every piece of the step shows.
_STEP_RUN = train.TrainConfig(steps=6, warmup=2, batch_size=8, train_scenes=64, device="cpu")


def _step_losses(step: object) -> list[float]:
    """The training losses of ``_STEP_RUN`` with ``step(model, optimiser, scheduler, images, labels)`` as the
    loop body, on batches drawn as train.train draws them (a generator seeded with the run's seed)."""
    import torch

    from .. import scenes

    config = _STEP_RUN
    model = train.build_model(config)
    optimiser, scheduler = train.make_optimiser(model, config)
    pool = scenes.scene_pool(config.task, config.train_scenes, 1, config.patch_size)
    order = torch.Generator().manual_seed(config.seed)
    model.train()
    losses = []
    with warnings.catch_warnings():  # only here: the learner's kernel keeps its warnings
        # PyTorch warns when the schedule steps before the optimiser; the check judges the losses instead
        warnings.filterwarnings("ignore", message="Detected call of `lr_scheduler.step", category=UserWarning)
        for _ in range(config.steps):
            index = torch.randint(len(pool.targets), (config.batch_size,), generator=order)
            loss = step(model, optimiser, scheduler, pool.images[index], pool.targets[index])
            losses.append(float(loss.item() if hasattr(loss, "item") else loss))
    return losses


@functools.cache
def _variant_losses(**kwargs: bool) -> tuple[float, ...]:
    """The losses of a known loop body (cached: the checker compares every answer with them)."""
    return tuple(_step_losses(_variant(**kwargs)))


def _variant(zero: bool = True, zero_after: bool = False, opt: bool = True, sched: bool = True):
    """A loop body with one piece left out or misplaced (the known mistakes of Exercise 10.2)."""
    import torch.nn.functional as F

    def step(model, optimiser, scheduler, images, labels):
        loss = F.cross_entropy(model(images), labels)
        if zero and not zero_after:
            optimiser.zero_grad(set_to_none=True)
        loss.backward()
        if zero_after:
            optimiser.zero_grad(set_to_none=True)
        if opt:
            optimiser.step()
        if sched:
            scheduler.step()
        return loss.item()

    return step


_STEP_MISTAKES = (
    (dict(zero=False), "the gradients are never cleared, so each step adds to the last step's gradients."),
    (
        dict(opt=False),
        "the weights never move: either the optimiser never takes its step, or the gradients are cleared after "
        "backward(), before the step can use them.",
    ),
    (dict(sched=False), "the learning rate stays where it started: the schedule is never advanced."),
)


@never_raises
def train_step(func: object) -> Verdict:
    """Exercise 10.2: one training step, ``func(model, optimiser, scheduler, images, labels) -> float``, run as
    the body of a short loop and compared, loss by loss, with the same loop around a right step (the body of
    :func:`vitcourse.train.train`'s loop), on the same batches."""
    what = "your train_step"
    if func is None:
        return say(
            False, f"{what}: the answer is still None; define the function and pass it (without calling it)."
        )
    if not callable(func):
        return say(False, f"{what}: pass the function itself (no parentheses).")
    try:
        got = _step_losses(func)
    except Exception as err:  # the learner's code: any error is an answer to explain
        return say(False, f"{what}: calling it raised {type(err).__name__}: {err}")
    expected = _variant_losses()
    if all(math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5) for a, b in zip(got, expected, strict=True)):
        return right(what)
    for kwargs, why in _STEP_MISTAKES:
        variant = _variant_losses(**kwargs)
        if all(math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5) for a, b in zip(got, variant, strict=True)):
            return say(False, f"{what}: {why}")
    first = next(
        k
        for k, (a, b) in enumerate(zip(got, expected, strict=True))
        if not math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5)
    )
    return unexplained(
        what,
        f"the losses of a short run differ from those of a right step from step {first} on.",
        nudge="Reread the five pieces of PyTorch listed before the exercise: each step needs all of them, in an "
        "order where each finds what it needs.",
        pointer=reread("The schedule and the loop"),
    )


@never_raises
def stuck_learning_rate(answer: object) -> Verdict:
    """Exercise 10.2 (b): the learning rate every step of the default run uses when the loop never calls
    ``scheduler.step()``. ``LambdaLR`` sets step 0's rate when it is made, so the rate stays at
    ``lr * lr_factor(0)``, the warm-up's first rate."""
    config = _DEFAULT
    expected = config.lr * train.lr_factor(0, config.warmup, config.steps)
    return float_answer(
        answer,
        expected,
        "the learning rate of a run whose schedule never moves",
        nudge="Which step does the schedule think it is at, if nothing moves it on? Read the schedule's formula at "
        "that step.",
        wrong=(
            (
                config.lr,
                "that is the peak rate; the scheduler sets a rate of its own when it is made, before any step.",
            ),
            (0.0, "the warm-up gives no step a rate of 0; reread how the formula treats its first step."),
            (
                config.lr * train.lr_factor(1, config.warmup, config.steps),
                "that is the rate of the second step; count the steps from 0.",
            ),
        ),
        rel=0.02,
        pointer=reread("The schedule and the loop"),
    )
