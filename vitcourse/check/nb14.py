"""Exercise checkers for notebook 14, what shapes a ViT.

Exercises 14.1 and 14.2 read the stored data-scale sweep, ``data_scale.json`` in :data:`vitcourse.datascale.RESULTS`
(the file named by ``datascale.FILES["sweep"]``, which ``make experiments`` writes): its ``"runs"`` (one record per
model, training-set size and seed: ``"model"``, ``"train_size"``, ``"accuracy"``), its ``"sizes"`` and its
``"settings"`` (``"steps"``, ``"batch_size"``). Exercise 14.3 counts the multiply-adds per image of the two models
of section 2 as the notebook does (:func:`vitcourse.cost.count_macs` on :func:`vitcourse.train.build_model`'s ViT
and T2T-ViT). No right answer is typed in here: when the experiments are run again, the checkers follow.
"""

from __future__ import annotations

import functools
import json

import torch

from .. import cost, datascale
from ._core import Verdict, choice_answer, float_answer, int_answer, known_mistakes, never_raises, reread

__all__ = [
    "matched_compute_batch",
    "matched_compute_steps",
    "sweep_lowest_seed",
    "sweep_t2t_rise",
    "vit_flat_line",
    "vit_flat_line_passes",
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


def t2t_rise() -> tuple[float, int, int]:
    """Exercise 14.1 (a): how much T2T-ViT's mean held-out accuracy rises from the sweep's smallest training set
    to 1,024 pictures (the third size), and those two sizes."""
    sizes = _sweep()["sizes"]
    small, large = sizes[0], sizes[2]
    return _mean("t2t", large) - _mean("t2t", small), small, large


@never_raises
def sweep_t2t_rise(answer: object) -> Verdict:
    """Exercise 14.1 (a): the rise of T2T-ViT's mean held-out accuracy (the plotted point, the mean of three
    seeds) from the smallest training set to 1,024 pictures, read off the data-scale figure to within 0.03."""
    rise, small, large = t2t_rise()
    largest = _sweep()["sizes"][-1]
    wrong = [
        (-rise, "you subtracted the other way round: the rise is the later point minus the earlier one."),
        (
            _mean("t2t", largest) - _mean("t2t", small),
            "that is the rise up to the largest training set; the question stops at the third size.",
        ),
        (100 * rise, "that is in percentage points; the figure's axis reads accuracy as a fraction, 0 to 1."),
    ]
    return float_answer(
        answer,
        rise,
        "T2T-ViT's rise from the smallest set",
        nudge="The exercise rests on reading two of T2T-ViT's points, each the mean of its three seeds, on the "
        "accuracy axis.",
        wrong=wrong,
        rel=READING / abs(rise),
        pointer=reread("The three answers, measured on the scenes"),
    )


def t2t_lowest_seed() -> float:
    """Exercise 14.1 (b): the held-out accuracy of T2T-ViT's lowest seed on the largest training set."""
    return min(_seeds("t2t", _sweep()["sizes"][-1]))


@never_raises
def sweep_lowest_seed(answer: object) -> Verdict:
    """Exercise 14.1 (b): the held-out accuracy of T2T-ViT's lowest seed at the largest training set, the lower
    end of its bar in the data-scale figure, read to within 0.03."""
    lowest = t2t_lowest_seed()
    largest = _sweep()["sizes"][-1]
    wrong = [
        (
            _mean("t2t", largest),
            "that is the point, the mean of the three seeds; the bar's lower end is one seed.",
        ),
        (max(_seeds("t2t", largest)), "that is the upper end of the bar, the best seed."),
        (100 * lowest, "that is in percent; the figure's axis reads accuracy as a fraction, 0 to 1."),
    ]
    return float_answer(
        answer,
        lowest,
        "T2T-ViT's lowest seed on the largest set",
        nudge="The exercise rests on what a bar in this figure spans: from the lowest of the three seeds to the "
        "highest.",
        wrong=wrong,
        rel=READING / lowest,
        pointer=reread("The three answers, measured on the scenes"),
    )


_FLAT_OPTIONS = ("a", "b", "c", "d")

_FLAT_WHY = {
    "a": "you read the flat held-out line as a need for more pictures. A held-out line speaks about the amount "
    "of data only for a model that learned the pictures it was given; look at the ViT's training loss first.",
    "b": "learning pictures by heart shows as a training loss near 0 beside a low held-out accuracy, as "
    "T2T-ViT's runs on the smallest set do; the ViT's training loss is nowhere near 0.",
    "d": "the sweep ran one training recipe. A run that never fits its own pictures may have failed to "
    "optimise; that says nothing about what the architecture could learn with another recipe.",
}


@never_raises
def vit_flat_line(answer: object) -> Verdict:
    """Exercise 14.2, the choice: what the ViT's runs of the sweep (held-out accuracy at chance, training loss at
    ln 2, at every size) say about how much data it needs, as a letter; :func:`vit_flat_line_passes` checks the
    number."""
    return choice_answer(
        answer,
        "c",
        "what the ViT's flat line says",
        _FLAT_OPTIONS,
        nudge="The exercise rests on the two losses: what a training loss at ln 2 says about the pictures the "
        "model trained on.",
        pointer=reread("ViT and the amount of data"),
        wrong=_FLAT_WHY,
    )


def passes_per_picture(size: int = 256) -> float:
    """Exercise 14.2, the number: how many times, on average, a sweep run drew each picture of a pool of ``size``
    pictures (its steps times its batch size, over the pool), from the stored settings."""
    settings = _sweep()["settings"]
    return settings["steps"] * settings["batch_size"] / size


@never_raises
def vit_flat_line_passes(answer: object) -> Verdict:
    """Exercise 14.2, the number: how many times, on average, the ViT drew each picture of the 256-picture pool
    in its training (the sweep's stored steps and batch size)."""
    settings = _sweep()["settings"]
    expected = passes_per_picture(256)
    wrong = [
        (
            settings["steps"],
            "that is the number of steps; each step draws a whole batch of pictures from the pool.",
        ),
        (
            settings["steps"] * settings["batch_size"],
            "that is how many pictures it drew in all, repeats included; the question asks how often each "
            "picture of the pool came up.",
        ),
        (settings["steps"] / 256, "you left out the batch: each step draws a batch of pictures, not one."),
        (1 / expected, "you divided the other way round: the pictures drawn in all, shared among the pool."),
    ]
    return float_answer(
        answer,
        expected,
        "how often the ViT saw each picture",
        nudge="The exercise rests on what a training run draws: a batch of pictures at every step, from a fixed "
        "pool.",
        wrong=wrong,
        rel=0.01,
        pointer=reread("ViT and the amount of data"),
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
            (round(batch * _ratio()), "that is the batch size for the same multiply-adds in the same steps."),
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
                "that is the number of steps for the same multiply-adds at the same batch.",
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
