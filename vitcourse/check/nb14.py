"""Exercise checkers for notebook 14, what shapes a ViT.

Exercise 14.1 asks for the loss floor of a model that gives every picture the same output on four equally
frequent shapes (ln 4) and what a training loss at that floor says. Exercise 14.2 reads the stored data-scale
sweep, ``data_scale.json`` in :data:`vitcourse.datascale.RESULTS` (the file named by ``datascale.FILES["sweep"]``,
which ``make experiments`` writes): its ``"runs"`` (one record per model, training-set size and seed:
``"model"``, ``"train_size"``, ``"accuracy"``) and its ``"sizes"``. Exercise 14.3 counts the multiply-adds per image of the two models
of section 3 as the notebook does (:func:`vitcourse.cost.count_macs` on :func:`vitcourse.train.build_model`'s ViT
and T2T-ViT). No right answer is typed in here: when the experiments are run again, the checkers follow.
"""

from __future__ import annotations

import functools
import json
import math

import torch

from .. import cost, datascale
from ._core import (
    Verdict,
    choice_answer,
    float_answer,
    int_answer,
    known_mistakes,
    never_raises,
    reread,
    say,
)

__all__ = [
    "matched_compute_batch",
    "matched_compute_steps",
    "matched_compute_winner",
    "sweep_gap_large",
    "sweep_gap_reading",
    "sweep_gap_small",
    "vit_flat_line",
    "vit_flat_line_floor",
]

#: How closely a value read off the data-scale figure must match (held-out accuracy, a fraction from 0 to 1).
READING = 0.03


@functools.lru_cache(maxsize=1)
def _sweep() -> dict:
    """The stored data-scale sweep (``data_scale.json``), read once."""
    return json.loads((datascale.RESULTS / datascale.FILES["sweep"]).read_text())


def _seeds(model: str, size: int) -> list[float]:
    """The held-out accuracy of each seed of ``model`` trained on ``size`` pictures, in the stored sweep."""
    return [r["accuracy"] for r in _sweep()["runs"] if r["model"] == model and r["train_size"] == size]


def _mean(model: str, size: int) -> float:
    found = _seeds(model, size)
    return sum(found) / len(found)


def _cnn_lead(size: int) -> float:
    """The small CNN's lead over the ViT at ``size`` training pictures: the difference of their plotted points
    (each the mean held-out accuracy of three seeds)."""
    return _mean("cnn", size) - _mean("vit", size)


def _gap(answer: object, size: int, which: str) -> Verdict:
    lead = _cnn_lead(size)
    wrong = [
        (-lead, "you subtracted the other way round: the lead is the CNN's point minus the ViT's."),
        (100 * lead, "that is in percentage points; the figure's axis reads accuracy as a fraction, 0 to 1."),
        (
            _mean("cnn", size),
            "that is the CNN's point alone; the lead is the distance between the CNN's point and the ViT's.",
        ),
    ]
    return float_answer(
        answer,
        lead,
        f"the CNN's lead {which}",
        nudge="The exercise rests on two points at one size on the held-out panel, each the mean of three seeds.",
        wrong=wrong,
        rel=READING / max(abs(lead), READING),
        pointer=reread("Figure 3 at toy scale"),
    )


@never_raises
def sweep_gap_small(answer: object) -> Verdict:
    """Exercise 14.2 (a): the CNN's lead over the ViT in held-out accuracy at the sweep's smallest training set,
    read off the data-scale figure to within 0.03."""
    return _gap(answer, _sweep()["sizes"][0], "on the smallest training set")


@never_raises
def sweep_gap_large(answer: object) -> Verdict:
    """Exercise 14.2 (b): the CNN's lead over the ViT in held-out accuracy at the sweep's largest training set,
    read off the data-scale figure to within 0.03."""
    return _gap(answer, _sweep()["sizes"][-1], "on the largest training set")


_FLAT_OPTIONS = ("i", "ii", "iii", "iv")


_UNSET = object()


@never_raises
def vit_flat_line(answer: object, floor: object = _UNSET) -> Verdict:
    """Exercise 14.1 (b), the choice: what a ViT whose training loss is 1.39 (the floor of (a), ln 4) at every
    size would say about how much data it needs, as "i" to "iv". Given ``floor``, the learner's answer to (a),
    (b) is graded only once that number is right (:func:`vit_flat_line_floor` grades it); the message is then the
    same whatever (b) holds, so it says nothing about the choice."""
    if floor is not _UNSET and not _close(floor, loss_floor(), 0.01):
        return say(
            False,
            "what the ViT's flat line says: (b) reads the training loss against the floor of (a), so it is graded "
            "once (a) is right; get (a) right first.",
        )
    return choice_answer(
        answer,
        "iii",
        "what the ViT's flat line says",
        _FLAT_OPTIONS,
        nudge="The exercise rests on what a training loss says about the training pictures, read beside (a).",
        pointer=reread("A ViT stuck at its start, and why"),
    )


def _close(answer: object, expected: float, rel: float) -> bool:
    """Whether ``answer`` is a real number within ``rel`` of ``expected`` (False for anything else)."""
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False
    return abs(answer - expected) <= rel * abs(expected)


#: Exercise 14.2 (c)'s answers: a statement's letter and a reason's number; "a-i" is right.
_GAP_PAIRS = tuple(f"{letter}-{reason}" for letter in "abc" for reason in ("i", "ii", "iii"))


@never_raises
def sweep_gap_reading(answer: object) -> Verdict:
    """Exercise 14.2 (c): what the CNN's leads on the smallest and largest training sets say about Figure 3's
    question, and what in the training-accuracy panel allows that reading, as one answer: the statement's letter
    and the reason's number ("a-i": the lead does not shrink within these sizes; every model fits its training
    pictures, so the held-out gap is about new pictures). Graded as a pair, with one feedback for every wrong
    pair, so the letters and the reasons cannot be tried one part at a time."""
    if isinstance(answer, str):
        answer = answer.replace(" ", "").replace(",", "-").replace("(", "").replace(")", "")
    return choice_answer(
        answer,
        "a-i",
        "what the two leads say, and why the right panel matters",
        _GAP_PAIRS,
        nudge="Not this pair. Compare your answers to (a) and (b), then read the right panel at every size.",
        pointer=reread("Figure 3 at toy scale"),
    )


def loss_floor() -> float:
    """Exercise 14.1 (a): the lowest mean cross-entropy (natural log) a model that gives every picture the same
    probabilities can reach on four equally frequent shapes: every q = 1/4, ln 4."""
    return math.log(4)


@never_raises
def vit_flat_line_floor(answer: object) -> Verdict:
    """Exercise 14.1 (a): the lowest mean loss of a model that gives every picture the same output."""
    floor = loss_floor()
    wrong = [
        (2.0, "check the base of your logarithm against the course's losses."),
        (-floor, "you dropped the minus sign: a cross-entropy is minus the log of a probability."),
        (0.25, "that is an accuracy (chance among four), not a loss."),
        (
            math.log(2),
            "that is a floor from notebook 10's task, not this one: write the mean loss over the four shapes with "
            "the shared q's, then find the q's that make it smallest.",
        ),
        (4 * floor, "that is four pictures' losses added, one per shape; the question asks for their mean."),
    ]
    if isinstance(answer, int | float) and not isinstance(answer, bool) and abs(answer) < 1e-3:
        return float_answer(
            answer,
            floor,
            "the loss floor of a model that ignores its input",
            nudge="The exercise rests on the one output shared by every picture.",
            pointer=reread("A ViT stuck at its start, and why"),
            wrong=[
                (
                    answer,
                    "a loss of 0 needs the model sure and right on every picture, but it gives every picture the "
                    "same output and the pictures hold four different shapes.",
                )
            ],
        )
    return float_answer(
        answer,
        floor,
        "the loss floor of a model that ignores its input",
        nudge="The exercise rests on the one output shared by every picture: the shapes come equally often, and "
        "the loss counts every picture.",
        wrong=wrong,
        rel=0.01,
        pointer=reread("A ViT stuck at its start, and why"),
    )


@functools.lru_cache(maxsize=1)
def per_image_macs() -> dict[str, int]:
    """Exercise 14.3: the multiply-adds per 60 x 100 image of section 2's ViT and T2T-ViT, counted as the
    notebook counts them (:func:`vitcourse.cost.count_macs` on :func:`vitcourse.train.build_model`)."""
    from ..train import (
        TrainConfig,
        build_model,
    )  # imported here: only this exercise needs the training module

    counts = {}
    for model in ("vit", "t2t"):
        net = build_model(TrainConfig(model=model, pos_embed="sinusoidal", device="cpu"))
        counts[model] = sum(cost.count_macs(net, torch.zeros(1, 1, 60, 100), depth=2).values())
    return counts


def _ratio() -> float:
    macs = per_image_macs()
    return macs["t2t"] / macs["vit"]


def _rounded_first(count: int) -> list[tuple[int, str]]:
    """The answers of a ratio cut short before multiplying (to a whole number, to one decimal)."""
    hint = (
        "you cut the ratio short before multiplying; use the two counts printed (or the ratio to two decimals) "
        "and round only the result."
    )
    return [(round(count * round(_ratio())), hint), (round(count * round(_ratio(), 1)), hint)]


@never_raises
def matched_compute_steps(answer: object, t2t_steps: int = 30, batch: int = 32) -> Verdict:
    """Exercise 14.3 (a): how many steps of ``batch`` images the ViT may take to spend the multiply-adds of
    T2T-ViT's ``t2t_steps`` steps of ``batch`` (a whole number, rounded at the end)."""
    expected = round(t2t_steps * _ratio())
    wrong = known_mistakes(
        [
            (
                round(t2t_steps / _ratio()),
                "you divided by the ratio: the cheaper model gets more steps, not fewer.",
            ),
            (
                round(t2t_steps * batch * _ratio()),
                "that counts images, not steps: each step takes a whole batch.",
            ),
            (
                round(batch * _ratio()),
                "you scaled the batch: (a) keeps 32 images a step and asks how many steps the ViT may take.",
            ),
            *_rounded_first(t2t_steps),
        ],
        expected,
    )
    return int_answer(
        answer,
        expected,
        "the ViT's steps at matched compute",
        nudge="The exercise rests on what the two runs must share: the multiply-adds spent in all, not the "
        "steps or the images.",
        wrong=wrong,
        pointer=reread("ViT or T2T-ViT, trained from scratch"),
    )


@never_raises
def matched_compute_batch(answer: object, t2t_steps: int = 30, batch: int = 32) -> Verdict:
    """Exercise 14.3 (b): how many images per step the ViT may take in T2T-ViT's ``t2t_steps`` steps to spend
    the multiply-adds of T2T-ViT's ``t2t_steps`` steps of ``batch`` (a whole number, rounded at the end)."""
    expected = round(batch * _ratio())
    wrong = known_mistakes(
        [
            (
                round(batch / _ratio()),
                "you divided by the ratio: the cheaper model gets larger batches, not smaller.",
            ),
            (
                round(t2t_steps * _ratio()),
                "you scaled the steps: (b) keeps T2T-ViT's 30 steps and asks how many images each step holds.",
            ),
            (
                round(t2t_steps * batch * _ratio()),
                "that counts the images of the whole run; the question asks for the images of one step.",
            ),
            *_rounded_first(batch),
        ],
        expected,
    )
    return int_answer(
        answer,
        expected,
        "the ViT's batch at matched compute",
        nudge="The exercise rests on what the two runs must share: the multiply-adds spent in all, not the "
        "steps or the images.",
        wrong=wrong,
        pointer=reread("ViT or T2T-ViT, trained from scratch"),
    )


#: Exercise 14.3 (c)'s statements, as the notebook lists them; "a" is right.
WINNER_OPTIONS = ("a", "b", "c", "d")


@never_raises
def matched_compute_winner(answer: object) -> Verdict:
    """Exercise 14.3 (c): the prediction, which compute-matched ViT reaches the higher held-out accuracy on 20 x 20
    scrambles and why: the letter of the statement, among a to d, whose choice and reason both hold ("a": more
    steps of 32, the same multiply-adds buying about six times the weight updates). The notebook's cell under the
    seed table asserts the outcome, with margins against the seeds' spread."""
    return choice_answer(
        answer,
        "a",
        "the compute-matched ViT that wins, and why",
        WINNER_OPTIONS,
        nudge="Each statement names a run and a reason; both must hold. Check each reason against the runs' "
        "steps, batches and multiply-adds in (a) and (b).",
        pointer=reread("ViT or T2T-ViT, trained from scratch"),
    )
