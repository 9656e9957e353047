"""Exercise checkers for notebook 05 vision transformer."""

from __future__ import annotations

import torch

from ..models import VisionTransformer
from ._core import (
    Mistake,
    Verdict,
    check_function,
    choice_answer,
    float_answer,
    never_raises,
    random_cases,
    reread,
)

__all__ = [
    "attention_share_choice",
    "mean_pool_function",
    "zero_token_attention",
]


#: Exercise 05.4: the picture model (D 64, 2 blocks, 4 heads) without a position embedding, its prediction token
#: at zero, freshly initialised; the weight that token 0 gives to patch 12 in block 1, head 0.
ZERO_TOKEN_PATCH, ZERO_TOKEN_HEAD = 12, 0


def zero_token_weights() -> torch.Tensor:
    """Block 1's attention weights (heads, N + 1, N + 1) of a fresh picture ViT with ``pos_embed="none"`` and a
    zero prediction token, on a random 60 x 100 picture (the first row does not depend on the picture)."""
    gen = torch.Generator().manual_seed(0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = VisionTransformer(embed_dim=64, depth=2, num_heads=4, pos_embed="none").eval()
    with torch.no_grad():
        model.cls_token.zero_()
        image = torch.randn(1, 1, 60, 100, generator=gen)  # (1, 1, H, W)
        return model.attention_weights(image, block=0)[0]  # (heads, N + 1, N + 1)


@never_raises
def zero_token_attention(answer: object) -> Verdict:
    """Exercise 05.4: the first block's weight from a zero prediction token (no position embedding) to patch 12."""
    weights = zero_token_weights()
    expected = float(weights[ZERO_TOKEN_HEAD, 0, ZERO_TOKEN_PATCH])
    keys, heads, dim = weights.shape[-1], weights.shape[0], 64
    return float_answer(
        answer,
        expected,
        "block 1's weight from the zero prediction token to patch 12",
        nudge="The exercise rests on the values a fresh model's weights start from, and on what each step of "
        "block 1 makes of a token of zeros.",
        wrong=[
            (
                1 / (keys - 1),
                "a key is missing from that count: the softmax runs over every key.",
            ),
            (1.0, "the weights of one query sum to 1 over all the keys; no single key takes all of it here."),
            (0.0, "a softmax weight is never 0: exp(score) > 0 for every key, whatever the score."),
            (
                1 / heads,
                "each head has its own weights; within one head, the query's weights are spread over the keys, "
                "not over the heads.",
            ),
            (
                1 / dim,
                "D is the length of a token; the weights are spread over tokens, not over a token's entries.",
            ),
        ],
        pointer=reread("How the weights start"),
    )


POOL_MISTAKES = [
    Mistake(
        lambda f: f[:, 1:].sum(dim=1) / f.shape[1],
        "that is the given function, unchanged: the bug is still in it.",
    ),
    Mistake(
        lambda f: f.mean(dim=1),
        "that averages every token, the prediction token included; mean pooling averages the patch tokens.",
    ),
    Mistake(
        lambda f: f[:, :-1].mean(dim=1),
        "that leaves out the last token; the prediction token is token 0.",
    ),
    Mistake(
        lambda f: f[:, 0],
        "that is the prediction token itself; the exercise asks for the mean of the others.",
    ),
    Mistake(
        lambda f: f[:, 1:].mean(dim=0),
        "the mean runs over the batch (dim 0): each image must keep its own vector; average over the tokens.",
    ),
    Mistake(
        lambda f: f[:, 1:].mean(dim=-1),
        "the mean runs over the token length D (the last dim): each image would keep one number, not a vector.",
    ),
    Mistake(
        lambda f: f[:, 1:].sum(dim=1),
        "that is the sum of the patch tokens; divide by their number to get the mean.",
    ),
]


@never_raises
def mean_pool_function(func: object) -> Verdict:
    """Exercise 05: ``func(features)`` must average the patch tokens of (B, N + 1, D): result (B, D)."""
    cases = random_cases(9, [((2, 16, 8),), ((3, 5, 12),), ((1, 197, 32),)], lambda f: f[:, 1:].mean(dim=1))
    return check_function(
        func,
        "your mean pooling",
        cases,
        mistakes=POOL_MISTAKES,
        nudge="The exercise rests on which tokens the features hold, and which of them mean pooling averages.",
        pointer=reread("Prediction processing"),
    )


#: Exercise 05.5: the options for the share of ViT-B/16's multiply-adds at 224 x 224 that attention's two
#: products take, in per cent.
SHARE_OPTIONS = ("4", "25", "50")


def vit_b_attention_share() -> float:
    """The share of ViT-B/16's multiply-adds at 224 x 224 (``count_macs``, on the meta device) that its 12 blocks'
    two attention products, ``2 N^2 D`` each, take."""
    from ..cost import count_macs
    from ..models import create_model

    with torch.device("meta"):
        model = create_model("vit_base_patch16_224")
        macs = count_macs(model, torch.empty(1, 3, 224, 224), depth=1)
    n, d = model.num_patches + 1, model.embed_dim
    return len(model.blocks) * 2 * n * n * d / sum(macs.values())


@never_raises
def attention_share_choice(answer: object) -> Verdict:
    """Exercise 05.5: about what share of ViT-B/16's 17.6 G MACs attention's two products take."""
    share = 100 * vit_b_attention_share()
    expected = min(SHARE_OPTIONS, key=lambda o: abs(float(o) - share))
    return choice_answer(
        answer,
        expected,
        "the share of ViT-B/16's multiply-adds in attention's two products",
        SHARE_OPTIONS,
        nudge="The exercise rests on how one block's cost splits between attention's two products and its "
        "linear layers, at ViT-B/16's number of tokens and width.",
        pointer=reread("What a block costs"),
    )
