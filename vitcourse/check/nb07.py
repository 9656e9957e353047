"""Exercise checkers for notebook 07, the whole Vision Transformer."""

from __future__ import annotations

import torch

from ..data import load_mountains, to_tensor
from ..models import VisionTransformer
from ._core import (
    Mistake,
    Verdict,
    check_function,
    float_answer,
    int_answer,
    known_mistakes,
    never_raises,
    random_cases,
    reread,
)

__all__ = [
    "attention_share_percent",
    "block_cost_tie_tokens",
    "constant_token_attention",
    "final_norm_token_size",
    "largest_token_patch",
    "mean_pool_factor",
    "mean_pool_function",
]


#: Exercise 07.3: the picture model (D 64, 2 blocks, 4 heads) without a position embedding, every entry of its
#: prediction token set to 1, freshly initialised; the weight that token 0 gives to token 12 (patch 11) in block
#: 0, head 0.
CONSTANT_TOKEN_KEY, CONSTANT_TOKEN_HEAD = 12, 0


def constant_token_weights() -> torch.Tensor:
    """Block 0's attention weights (heads, N + 1, N + 1) of a fresh picture ViT with ``pos_embed="none"`` and a
    prediction token of ones, on a random 60 x 100 picture (the first row does not depend on the picture)."""
    gen = torch.Generator().manual_seed(0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = VisionTransformer(embed_dim=64, depth=2, num_heads=4, pos_embed="none").eval()
    with torch.no_grad():
        model.cls_token.fill_(1.0)
        image = torch.randn(1, 1, 60, 100, generator=gen)  # (1, 1, H, W)
        return model.attention_weights(image, block=0)[0]  # (heads, N + 1, N + 1)


@never_raises
def constant_token_attention(answer: object) -> Verdict:
    """Exercise 07.3: block 0's weight from a prediction token of ones (no position embedding) to token 12."""
    weights = constant_token_weights()
    expected = float(weights[CONSTANT_TOKEN_HEAD, 0, CONSTANT_TOKEN_KEY])
    heads, dim = weights.shape[0], 64
    return float_answer(
        answer,
        expected,
        "block 0's weight from the prediction token of ones to token 12",
        nudge="The exercise rests on the values a fresh model's weights start from, and on what each step of "
        "block 0 makes of the prediction token.",
        wrong=[
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
        pointer=reread("How a fresh ViT starts"),
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
        "the mean runs over the batch (dim 0): each image must keep its own vector.",
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
    """Exercise 07.1: ``func(features)`` must average the patch tokens of (B, N + 1, D): result (B, D)."""
    cases = random_cases(9, [((2, 16, 8),), ((3, 5, 12),), ((1, 197, 32),)], lambda f: f[:, 1:].mean(dim=1))
    return check_function(
        func,
        "your mean pooling",
        cases,
        mistakes=POOL_MISTAKES,
        nudge="The exercise rests on which tokens the features hold, and which of them mean pooling averages.",
        pointer=reread("Prediction processing"),
    )


#: Exercise 07.1 (b): section 1's number of patches N; the buggy pooling divides the sum of N tokens by N + 1.
POOL_PATCHES = 175


@never_raises
def mean_pool_factor(answer: object) -> Verdict:
    """Exercise 07.1 (b): buggy result divided by the right mean pooling, for section 1's N = 175 patch tokens."""
    n = POOL_PATCHES
    return float_answer(
        answer,
        n / (n + 1),
        "the factor between the buggy and the right mean pooling",
        nudge="The exercise rests on which tokens the features hold, and what a mean of some of them is.",
        wrong=[
            (
                (n + 1) / n,
                "that is the right result divided by the buggy one, the ratio the other way round.",
            ),
            (
                1 / (n + 1),
                "that is what the buggy function divides by, not the factor between the two results.",
            ),
            (1.0, "the two results differ for any features whose patch tokens do not sum to zero."),
            (
                (n - 1) / n,
                f"that counts the prediction token among the {n} patches; N = {n} counts the patch tokens alone.",
            ),
            (
                (n + 1) / (n + 2),
                "that counts the prediction token among the tokens the buggy function sums; its sum starts at "
                "token 1.",
            ),
            (round(n / (n + 1), 2), "close: give it exactly, as a fraction."),  # rounded answers
            (round(n / (n + 1), 3), "close: give it exactly, as a fraction."),
            (round(n / (n + 1), 4), "close: give it exactly, as a fraction."),
        ],
        rel=1e-5,  # (N - 1) / N and (N + 1) / (N + 2) lie within 0.004 % of the answer
        pointer=reread("Prediction processing"),
    )


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
def attention_share_percent(answer: object) -> Verdict:
    """Exercise 07.4 (a): what share of ViT-B/16's 17.6 G MACs attention's two products take, in per cent."""
    # rel 4 %: one block's share and the whole model's, a little lower, both pass; neighbouring mistakes do not
    share = 100 * vit_b_attention_share()
    n, d = 197, 768
    return float_answer(
        answer,
        share,
        "the share of ViT-B/16's multiply-adds in attention's two products, in per cent",
        nudge="The exercise rests on what one block costs, step by step, at ViT-B/16's number of tokens and "
        "width.",
        wrong=[
            (100 * n * n * d / (12 * n * d * d + n * n * d), "you counted one of the two products."),
            (
                100 * 2 * n * n * d / (4 * n * d * d + 2 * n * n * d),
                "the linear layers include the MLP's two.",
            ),
            (share / 100, "give the share in per cent (a number such as 12.5), not as a fraction."),
            (
                100 * 2 * n / (12 * d),
                "that divides the products by the linear layers alone; a share is of the whole block, the "
                "products included.",
            ),
        ],
        rel=0.04,
        pointer=reread("What a block costs"),
    )


def block_tie_tokens(dim: int = 768, mlp_ratio: float = 4.0) -> int:
    """The number of tokens N at which one encoder block's two attention products cost exactly as many multiply-adds
    as all its linear layers (qkv, proj and the MLP), counted by ``count_macs`` on the meta device."""
    from ..blocks import EncoderBlock
    from ..cost import count_macs

    with torch.device("meta"):
        block = EncoderBlock(dim, num_heads=12, mlp_ratio=mlp_ratio)
        macs = {n: count_macs(block, torch.empty(1, n, dim), depth=2) for n in (1, 2)}
    products = {n: macs[n]["attn"] for n in macs}  # at depth 2, "attn" holds only its own two products
    per_token = sum(macs[1].values()) - products[1]  # the linear layers' multiply-adds for one token
    per_pair = products[2] // 4  # the products' multiply-adds per pair of tokens (they grow with N squared)
    return per_token // per_pair


@never_raises
def block_cost_tie_tokens(answer: object) -> Verdict:
    """Exercise 07.4 (b): at how many tokens one ViT-B block (D 768, MLP ratio 4) spends as much on attention's two
    products as on all its linear layers."""
    tie = block_tie_tokens()
    d = 768
    return int_answer(
        answer,
        tie,
        "the number of tokens at which a ViT-B block's products cost as much as its linear layers",
        nudge="The exercise rests on which layers of an encoder block are linear, and how each one's cost grows "
        "with the number of tokens.",
        wrong=known_mistakes(
            [
                (
                    2 * d,
                    "that is where one attention layer's products tie with its own qkv and proj (notebook 05); "
                    "a block has more linear layers than those.",
                ),
                (
                    4 * d,
                    "that counts the MLP as one layer, or at ratio 2; ViT's MLP has two layers at ratio 4.",
                ),
                (
                    12 * d,
                    "that counts one of attention's two products; the scores and the weighted sum of the "
                    "values both grow with the square of the tokens.",
                ),
            ],
            tie,
        ),
        pointer=reread("What a block costs"),
    )


def picture_model_sizes() -> tuple[torch.Tensor, torch.Tensor]:
    """Notebook 07's fresh picture model (seed 0: D 64, 2 blocks, 4 heads) on the course's picture: the sizes
    (Euclidean norms) of its 15 patch tokens x_p E, and of its 16 tokens after the blocks and the final norm."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = VisionTransformer(embed_dim=64, depth=2, num_heads=4).eval()
    image = to_tensor(load_mountains())  # (1, 1, H, W)
    with torch.no_grad():
        patch_sizes = model.tokenize(image)[0].norm(dim=-1)  # (N,)
        final_sizes = model.forward_features(image)[0].norm(dim=-1)  # (N + 1,)
    return patch_sizes, final_sizes


@never_raises
def largest_token_patch(answer: object) -> Verdict:
    """Exercise 07.2 (a): the number of the patch (0 to 14, row by row) whose patch token is the largest."""
    patch_sizes, _ = picture_model_sizes()
    largest = int(patch_sizes.argmax())
    return int_answer(
        answer,
        largest,
        "the patch whose token x_p E is the largest",
        nudge="The exercise rests on what the patch embedding makes of pixels that are never negative.",
        pointer=reread("The whole ViT on the picture"),
    )


@never_raises
def final_norm_token_size(answer: object) -> Verdict:
    """Exercise 07.2 (b): the size (Euclidean norm) of token 0 after the blocks and a fresh final LayerNorm."""
    _, final_sizes = picture_model_sizes()
    return float_answer(
        answer,
        float(final_sizes[0]),
        "token 0's size after the blocks and the final norm",
        nudge="The exercise rests on what a fresh LayerNorm gives every token, whatever the token was before.",
        wrong=[
            (1.0, "1 is the spread (std) of one token's entries, not the size of the whole token."),
            (64.0, "that is the size squared, the sum of the squared entries."),
            (0.0, "the shift is 0, but the norm first subtracts the token's mean and divides by its spread."),
        ],
        rel=1e-3,
        pointer=reread("The whole ViT on the picture"),
    )
