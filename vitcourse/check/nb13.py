"""Exercise checkers for notebook 13, inside trained models."""

from __future__ import annotations

import functools

import numpy as np
import torch
from torch import nn

from .. import probes, scenes
from ..attention import ClearestColumn, ClearestRow, map_questions
from ..data import load_mountains, to_tensor
from ._core import (
    Verdict,
    choice_answer,
    float_answer,
    int_answer,
    known_mistakes,
    never_raises,
    reread,
)

__all__ = [
    "attention_map_column",
    "attention_map_reading",
    "control_rows_prediction",
    "control_run",
    "moon_corner_distance",
    "moon_only_head_distance",
]


@functools.lru_cache(maxsize=1)
def _shipped_vit() -> nn.Module:
    """The course's shipped ViT (``vit_where``) on the CPU, loaded once."""
    from ..train import load_shipped  # imported here: the training module is only needed by this checker

    return load_shipped("vit_where", "cpu").model


def _map_weights(picture: np.ndarray | torch.Tensor) -> torch.Tensor:
    """The shipped ViT's attention weights on ``picture`` (60 x 100), every block: (blocks, heads, 16, 16)."""
    vit = _shipped_vit()
    image = to_tensor(picture).reshape(1, 1, *np.shape(picture)[-2:])  # (1, 1, H, W)
    with torch.no_grad():
        return torch.stack([vit.attention_weights(image, block=b)[0] for b in range(len(vit.blocks))])


def _map_question(picture: np.ndarray | torch.Tensor) -> ClearestRow:
    """Exercise 13.1's first question on ``picture``: the block, head and query token whose row of the shipped
    ViT's attention map is easiest to read (see :func:`vitcourse.attention.map_questions`); token numbers, patch p
    = token p + 1."""
    return map_questions(_map_weights(picture), first=1)[0]


@never_raises
def attention_map_reading(answer: object, picture: np.ndarray | torch.Tensor | None = None) -> Verdict:
    """Exercise 13.1: which token the query token asked for attends to most, in the block and head asked for, read
    off the shipped ViT's attention maps on ``picture`` (default: the course picture). Token numbers as on the
    map's axes: token 0 is the prediction token and token p + 1 is patch p."""
    found = _map_question(load_mountains() if picture is None else picture)
    wrong = known_mistakes(
        [
            (
                found.column_reading,
                "you read the column of the query token, not its row: a column shows how much every query "
                "attends to one key. Each query's weights over the keys run along its row.",
            ),
            (
                found.key - 1,
                "that is the key's patch number; the question asks for its token number, as on the map's axes: "
                "token 0 is the prediction token, so patch p is token p + 1.",
            ),
            (
                found.key + 1,
                "you counted the ticks from 1, but the first tick is token 0, the prediction token: read the "
                "number written at the tick.",
            ),
            (found.query, "that is the query token itself; the question asks which key it attends to most."),
        ],
        found.key,
    )
    return int_answer(
        answer,
        found.key,
        "the token read off the map",
        nudge="The idea is which axis of a weight matrix holds the queries and which the keys.",
        wrong=wrong,
        pointer=reread("Where a trained model's heads look"),
    )


def _column_question(picture: np.ndarray | torch.Tensor) -> ClearestColumn:
    """Exercise 13.1's second question on ``picture``: in the same block and head, the token whose column (as a
    key) is easiest to read (see :func:`vitcourse.attention.map_questions`); token numbers, patch p = token p + 1."""
    return map_questions(_map_weights(picture), first=1)[1]


@never_raises
def attention_map_column(answer: object, picture: np.ndarray | torch.Tensor | None = None) -> Verdict:
    """Exercise 13.1, second part: in the same block and head, the query token (1-15, a patch) that attends most
    to the second token asked about, read down that token's column of the shipped ViT's map on ``picture``
    (default: the course picture)."""
    column = _column_question(load_mountains() if picture is None else picture)
    wrong = known_mistakes(
        [
            (
                column.row_reading,
                "you read the token's row, which holds its own weights over the keys. How much every query "
                "attends to one key runs down that key's column.",
            ),
            (column.key, "that is the token asked about; the question asks which query attends to it most."),
            (
                column.query - 1,
                "that is the query's patch number; the question asks for its token number, as on the map's axes: "
                "token 0 is the prediction token, so patch p is token p + 1.",
            ),
            (
                column.query + 1,
                "you counted the ticks from 1, but the first tick is token 0, the prediction token: read the "
                "number written at the tick.",
            ),
        ],
        column.query,
    )
    return int_answer(
        answer,
        column.query,
        "the query token read off the map",
        nudge="The idea is which axis of a weight matrix holds the queries and which the keys.",
        wrong=wrong,
        pointer=reread("Where a trained model's heads look"),
    )


#: Exercise 13.2: the reference lines of the mean-attention-distance figure, on vit_within's 6 x 10 grid of
#: 10 x 10 patches.
DISTANCE_LINES = ("itself", "nearest", "uniform", "farthest")


def moon_only_distance(n_scenes: int = 256, seed: int = 0) -> tuple[float, dict[str, float]]:
    """The mean attention distance (pixels) of a head whose patch queries all attend only to the moon's patch, over
    ``n_scenes`` "within" scenes, and the figure's reference lines on the same grid."""
    patch, rows, cols = 10, 6, 10
    batch = scenes.make_batch("within", n_scenes, seed=seed, block=patch)
    moon = batch.targets[:, 0] * cols + batch.targets[:, 1]  # (n,): the moon's patch, counted from 0
    weights = torch.zeros(n_scenes, rows * cols, rows * cols)  # (n, queries, keys)
    weights[torch.arange(n_scenes), :, moon] = 1.0
    distance = probes.mean_attention_distance(weights, rows, cols, patch).mean().item()
    bounds = probes.attention_distance_bounds(rows, cols, patch)
    return distance, {k: float(bounds[k]) for k in DISTANCE_LINES}


@never_raises
def moon_only_head_distance(answer: object) -> Verdict:
    """Exercise 13.2 (a): the mean attention distance, in pixels, over many scenes, of a head whose patch queries
    attend only to the moon's patch (within about 3 pixels).

    The figure's four reference lines (:data:`DISTANCE_LINES`) are a few options to pick from, so, as in
    :func:`~vitcourse.check._core.choice_answer`, the wrong ones get no diagnosis of their own, only the hint
    ladder: a diagnosis per line would let a learner find the answer by elimination. Only a value that is no
    line, one corner scene's distance, is diagnosed."""
    distance, _lines = moon_only_distance()
    return float_answer(
        answer,
        distance,
        "a moon-only head's distance over many scenes",
        nudge="The exercise rests on what the mean attention distance averages over: every query patch, and "
        "every scene.",
        wrong=[(moon_corner_distance_value(), "that is one scene's distance, with the moon in a corner.")],
        rel=3.0 / distance,
        pointer=reread("How far the heads look"),
    )


def moon_corner_distance_value() -> float:
    """The mean attention distance (pixels) of a moon-only head on one scene whose moon is in patch 0, the top-left
    corner of vit_within's 6 x 10 grid of 10 x 10 patches."""
    weights = torch.zeros(1, 60, 60)  # (1 scene, query patches, key patches)
    weights[0, :, 0] = 1.0
    return probes.mean_attention_distance(weights, 6, 10, 10).item()


@never_raises
def moon_corner_distance(answer: object) -> Verdict:
    """Exercise 13.2 (b): the mean attention distance, in pixels, of a head whose patch queries all attend only to
    patch 0, on one scene of vit_within's grid."""
    expected = moon_corner_distance_value()
    bounds = probes.attention_distance_bounds(6, 10, 10)
    return float_answer(
        answer,
        expected,
        "the moon-only head's distance on one scene",
        nudge="The exercise rests on what the weights hold: one row per query patch, each putting its whole "
        "weight on the moon's patch, and the distance averaged over the query patches.",
        wrong=[
            (expected / 10, "that is the distance in patches; the function and the question count pixels."),
            (
                float(bounds["uniform"]),
                "that is the uniform line, where a head that attends evenly lands; this head puts every "
                "query's weight on patch 0: build those weights and measure them.",
            ),
            (
                probes.mean_attention_distance(torch.eye(60)[None], 6, 10, 10).item(),
                "those weights put each query on itself; the head puts every query on the moon's patch, patch 0: "
                "a column of the weights, not the diagonal.",
            ),
        ],
        rel=0.01,
        pointer=reread("How far the heads look"),
    )


_CONTROL_OPTIONS = ("a", "b", "c", "d", "e", "f")


@never_raises
def control_run(answer: object) -> Verdict:
    """Exercise 13.3, the choice: which candidate run could refute the claim that learning the task put the
    row structure into the learned position embedding (a letter; :func:`control_rows_prediction` checks
    the prediction)."""
    return choice_answer(
        answer,
        "c",
        "the control for the claim about the embedding's rows",
        _CONTROL_OPTIONS,
        nudge="A control can refute a claim only if the claim predicts its result: think of which ingredient of "
        "training the claim credits.",
        pointer=reread("Designing a control"),
    )


_ROWS_OPTIONS = ("start", "between", "claim", "negative")


@never_raises
def control_rows_prediction(answer: object) -> Verdict:
    """Exercise 13.3, the prediction: what the claim predicts for the control run's rows-only score, as one of
    "start", "between", "claim" or "negative" (:func:`control_run` checks the choice of run)."""
    return choice_answer(
        answer,
        "start",
        "the claim's prediction for the control's rows-only score",
        _ROWS_OPTIONS,
        nudge="A prediction follows from the claim alone: think of what the claim says the table owes to the "
        "one ingredient it credits.",
        pointer=reread("Designing a control"),
    )
