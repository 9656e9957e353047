"""Exercise checkers for notebook 11, training choices: position embeddings and block size.

Each exercise asks for a prediction or an explanation before the cell that shows the answer. Few-option
questions come with a second check (a number or a reason among several statements), so that a guess does not
pass. Every unexplained wrong answer climbs the ladder of :mod:`vitcourse.check._core`: a nudge (which idea), then a section to reread.
"""

from __future__ import annotations

import math

from ._core import (
    Verdict,
    choice_answer,
    float_answer,
    int_answer,
    never_raises,
    reread,
)

__all__ = [
    "blind_pairs_same_answer",
    "coin_exact_half",
    "no_position_batch_dip",
    "no_position_loss_floor",
    "seam_blocks_choice",
    "seam_blocks_reason",
]


@never_raises
def no_position_loss_floor(answer: object) -> Verdict:
    """Exercise 11.1, the floor: the lowest held-out loss (mean cross-entropy, natural log) the ViT without a
    position embedding can reach, whatever its weights, on a held-out set that holds each scene once intact and
    twice scrambled (two different scrambles)."""
    third = 1 / 3  # the share of intact images in that set
    return float_answer(
        answer,
        -(third * math.log(third) + (1 - third) * math.log(1 - third)),
        "the lowest held-out loss without a position embedding",
        nudge="Attention without a position embedding sees its tokens as a bag, order lost (notebook 03); cross-entropy "
        "charges each image for the probability it gives the image's own label.",
        wrong=[
            (
                math.log(2),
                "that is the floor when half of a scene's images are scrambled; here two of its three are: which "
                "single probability of 'scrambled' suits all three images of a scene best?",
            ),
            (
                2 / 3,
                "that is a probability or a share of right answers; the question asks for the loss, the mean "
                "cross-entropy.",
            ),
            (
                0.0,
                "a loss of 0 needs a confident right answer for both images of every pair, and their labels "
                "differ: ask whether this model can give a scene and its scrambled copy different answers.",
            ),
            (
                -(third * math.log2(third) + (1 - third) * math.log2(1 - third)),
                "right idea, but in bits: PyTorch's cross-entropy uses the natural logarithm.",
            ),
            (
                -math.log(1 - third),
                "that is the loss of the scrambled images alone; the mean runs over all three images of a "
                "scene, the intact one too.",
            ),
            (
                -math.log(third),
                "that is the intact image's loss alone; average it with the two scrambled ones.",
            ),
            (0.64, "close: give it to three decimals."),  # the right value rounded to two decimals
        ],
        rel=0.005,
        pointer=reread("Position embeddings: none, sinusoidal, learned"),
    )


#: Exercise 11.1(b): a batch of 64 images holding both images of 8 scenes and one image of each of 48 others.
_PAIRED, _SINGLE, _BATCH = 8, 48, 64


@never_raises
def no_position_batch_dip(answer: object) -> Verdict:
    """Exercise 11.1(b): the lowest loss the blind ViT could approach on a training batch of 64 images that holds
    both images of 8 scenes and one image of each of 48 other scenes."""
    paired_images = 2 * _PAIRED
    return float_answer(
        answer,
        paired_images / _BATCH * math.log(2),
        "the lowest loss of the blind ViT on that batch",
        nudge="Ask which images of the batch are bound to share one output with another image of the batch, "
        "and which are free.",
        wrong=[
            (math.log(2), "that applies the floor of whole pairs to every image, the single ones too."),
            (
                0.0,
                "that lets the 8 scenes present with both images be fitted too: can the blind ViT answer a "
                "scene's two images differently?",
            ),
            (
                _PAIRED / _BATCH * math.log(2),
                "that counts the paired scenes, not their images, in the mean over 64 images.",
            ),
            (
                _SINGLE / _BATCH * math.log(2),
                "check, for each kind of image in the batch, whether the model must give it the same output as another.",
            ),
            (0.17, "close: give it to three decimals."),
        ],
        rel=0.005,
        pointer=reread("Position embeddings: none, sinusoidal, learned"),
    )


#: Exercise 11.2: the held-out set's scenes, each once intact and once scrambled (seed 10000, 256 images).
_HELD_OUT_SCENES = 128


@never_raises
def blind_pairs_same_answer(answer: object) -> Verdict:
    """Exercise 11.2: for how many of the held-out set's scenes the ViT without a position embedding gives both
    images (intact, scrambled) the same answer, whatever its weights."""
    return int_answer(
        answer,
        _HELD_OUT_SCENES,
        "held-out scenes whose two images the blind ViT answers alike",
        nudge="Ask what the model without positions receives for a scene's intact image and for its scrambled "
        "copy.",
        wrong={
            _HELD_OUT_SCENES
            // 2: "that treats the model's answers for a scene's two images as independent coin tosses.",
            0: "that assumes the model tells every scene's two images apart.",
            _HELD_OUT_SCENES * 2: "that counts images; the question counts scenes.",
        },
        pointer=reread("Position embeddings: none, sinusoidal, learned"),
    )


#: Exercise 11.2(b): the held-out images a coin-tossing model answers, and how many of them it must get right.
_HELD_OUT_IMAGES = 2 * _HELD_OUT_SCENES


@never_raises
def coin_exact_half(answer: object) -> Verdict:
    """Exercise 11.2(b): the probability that a model answering each of the 256 held-out images by a fair coin
    gets exactly half of them right (the binomial probability of 128 of 256)."""
    half = _HELD_OUT_IMAGES // 2
    return float_answer(
        answer,
        math.comb(_HELD_OUT_IMAGES, half) / 2**_HELD_OUT_IMAGES,
        "the chance that a fair coin scores exactly 0.5 on the 256 held-out images",
        nudge="Count the ways to choose which 128 of the 256 tosses come out right, and the probability of "
        "any one sequence of 256 tosses.",
        wrong=[
            (0.5, "that is the coin's mean accuracy; the question asks how often it lands exactly on it."),
            (
                1.0,
                "that holds for the blind ViT, which must answer both images of a scene alike; a coin need not.",
            ),
            (
                math.comb(_HELD_OUT_SCENES, _HELD_OUT_SCENES // 2) / 2**_HELD_OUT_SCENES,
                "that tosses once per scene; the coin answers each of the 256 images on its own.",
            ),
            (0.0, "a sequence of exactly 128 right answers is rare, but there are very many such sequences."),
            (0.05, "close: give it to three significant figures."),
        ],
        rel=0.003,
        pointer=reread("Position embeddings: none, sinusoidal, learned"),
    )


_SEAM_OPTIONS = ("a", "b", "c", "d")


@never_raises
def seam_blocks_choice(answer: object) -> Verdict:
    """Exercise 11.3, the choice: what changes when the scramble shuffles 10 x 10 blocks and the ViT keeps
    P = 20 (a letter; :func:`seam_blocks_reason` checks the reason)."""
    return choice_answer(
        answer,
        "b",
        "scrambling 10 x 10 blocks for a ViT with 20 x 20 patches",
        _SEAM_OPTIONS,
        nudge="Think of what goes into one patch token when a block is smaller than a patch.",
        pointer=reread("Moving the seams"),
    )


_REASON_OPTIONS = ("i", "ii", "iii", "iv")


@never_raises
def seam_blocks_reason(answer: object) -> Verdict:
    """Exercise 11.3, the reason (i to iv) behind the choice of :func:`seam_blocks_choice`."""
    return choice_answer(
        answer,
        "i",
        "the reason for your choice about 10 x 10 blocks",
        _REASON_OPTIONS,
        nudge="Recall exactly what attention without a position embedding is blind to (notebook 03), and how "
        "the patch embedding weighs the pixels inside one patch.",
        pointer=reread("Moving the seams"),
    )
