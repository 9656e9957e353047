"""Exercise checkers for notebook 06, the encoder block."""

from __future__ import annotations

import torch
from torch import nn

from ..blocks import EncoderBlock
from ..models import VisionTransformer
from ._core import (
    Mistake,
    Verdict,
    check_function,
    choice_answer,
    float_answer,
    int_answer,
    never_raises,
    reread,
)

__all__ = [
    "post_norm_block_function",
    "post_norm_drift_choice",
    "post_norm_scaled_ratio",
    "slides_token_count",
    "slides_token_count_one_image",
]


def slides_tokens_after_one_step(
    batch_size: int = 32, dim: int = 16, one_image: bool = False, distinct_images: int | None = None
) -> int:
    """How many different token vectors the lecture slides' per-slot prediction token holds after one step of
    gradient descent on a batch of ``batch_size`` images with equal targets (a toy head on token 0 plus the mean
    of the patch tokens): different images, or with ``one_image`` the same image in every slot, or with
    ``distinct_images`` = k that many images, each copied into one k-th of the slots, in order."""
    gen = torch.Generator().manual_seed(0)
    token = nn.Parameter(torch.ones(batch_size, 1, dim))  # (batch_size, 1, D): one row per batch slot
    images = torch.randn(batch_size, 5, dim, generator=gen)  # (B, N, D)
    if one_image:
        images = images[:1].expand(batch_size, -1, -1).clone()  # (B, N, D): image 0 in every slot
    elif distinct_images is not None:
        which = torch.arange(batch_size) * distinct_images // batch_size  # (B,): slot s holds image which[s]
        images = images[which].clone()  # (B, N, D)
    readout, targets = torch.randn(dim, generator=gen), torch.zeros(batch_size)  # the same target everywhere
    with torch.enable_grad():
        with_token = torch.cat([token, images], dim=1)  # (B, N + 1, D)
        out = (
            with_token[:, 0] + with_token[:, 1:].mean(dim=1)
        ) @ readout  # (B,): token 0 mixed, then the head
        ((out - targets) ** 2).mean().backward()
    with torch.no_grad():
        token -= 0.1 * token.grad
    return len(torch.unique(token.detach().flatten(1), dim=0))


@never_raises
def slides_token_count(answer: object) -> Verdict:
    """Exercise 06.1 (a): the different token vectors of the slides' prediction token after one step of gradient
    descent on a batch of different images, one in each slot."""
    expected = slides_tokens_after_one_step()
    return int_answer(
        answer,
        expected,
        "different token vectors after one step",
        nudge="The exercise rests on the shape of the slides' parameter and on what each part of a parameter "
        "learns from.",
        wrong={
            768: "that counts the entries of one token vector, not token vectors.",
            32 * 768: "that counts every entry of the parameter, not its token vectors.",
        },
        pointer=reread("Token processing"),
    )


@never_raises
def slides_token_count_one_image(answer: object) -> Verdict:
    """Exercise 06.1 (b): the same step, with one image copied into slots 0 to 15 and a second one into slots 16
    to 31: how many different token vectors then."""
    expected = slides_tokens_after_one_step(distinct_images=2)
    return int_answer(
        answer,
        expected,
        "different token vectors after one step on two images, each in 16 slots",
        nudge="The exercise rests on what sets two rows of the parameter apart.",
        wrong={
            16: "that counts the slots that hold one image, not different token vectors.",
            0: "a parameter of this shape holds at least one token vector.",
            768: "that counts the entries of one token vector, not token vectors.",
        },
        pointer=reread("Token processing"),
    )


def _pre_norm(block: nn.Module, x: torch.Tensor) -> torch.Tensor:
    x = x + block.attn(block.norm1(x))  # (B, N, D)
    return x + block.mlp(block.norm2(x))  # (B, N, D)


def _post_norm(block: nn.Module, x: torch.Tensor) -> torch.Tensor:
    x = block.norm1(x + block.attn(x))  # (B, N, D)
    return block.norm2(x + block.mlp(x))  # (B, N, D)


def _given_post_norm(block: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Exercise 06.2's block as given, with its bug in both steps."""
    x = block.norm1(x) + block.attn(x)  # (B, N, D)
    return x + block.norm2(block.mlp(x))  # (B, N, D)


BLOCK_MISTAKES = [
    Mistake(
        _given_post_norm,
        "that is the given block, unchanged: the bug is still in it.",
    ),
    Mistake(
        lambda b, x: (lambda y: y + b.norm2(b.mlp(y)))(b.norm1(x + b.attn(x))),
        "one of the two steps follows the post-norm formula now; the other still does not.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(b.norm1(x) + b.attn(x)),
        "one of the two steps follows the post-norm formula now; the other still does not.",
    ),
    Mistake(
        _pre_norm,
        "this is ViT's pre-norm, x + f(LN(x)); the exercise asks for post-norm: reread where 'Pre-norm and "
        "post-norm' puts the norm.",
    ),
    Mistake(
        lambda b, x: b.norm2(b.mlp(b.norm1(b.attn(x)))),
        "both residual connections are missing; see 'Pre-norm and post-norm'.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(b.norm1(b.attn(x))),
        "the first residual is missing: the attention step's sum has only one term.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(b.mlp(y)))(b.norm1(x + b.attn(x))),
        "the second residual is missing: the MLP step's sum has only one term.",
    ),
    Mistake(
        lambda b, x: (lambda y: y + b.norm2(b.mlp(y)))(x + b.norm1(b.attn(x))),
        "the norms act on each part's output only, x + LN(f(x)); in post-norm, what does the norm act on?",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(x + b.attn(x)),
        "norm1 is missing: the attention step has no norm.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(y + b.mlp(b.norm2(y))))(b.norm1(x + b.attn(b.norm1(x)))),
        "each part normalises its input as well as the sum: each step has a norm too many.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm1(y + b.mlp(y)))(b.norm2(x + b.attn(x))),
        "norm1 and norm2 are swapped: norm1 follows the attention's residual, norm2 the MLP's.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(y + b.attn(y)))(b.norm1(x + b.mlp(x))),
        "the MLP runs before the attention: attention comes first, then the MLP.",
    ),
]


#: Exercise 06.3 (a): the options for the token std that leaves the last block (block 11) of a stack of 12 fresh
#: post-norm blocks.
DRIFT_OPTIONS = ("about 1.0", "about 1.4", "above 2")


def post_norm_stack_stds(
    depth: int = 12, dim: int = 64, heads: int = 4, scale: float = 1.0
) -> tuple[float, float]:
    """The std of the tokens that enter and that leave a stack of ``depth`` fresh post-norm blocks (the package's
    initialisation, a fresh ``VisionTransformer``'s blocks), on random tokens multiplied by ``scale``: section
    4's drift cell with post-norm blocks."""
    gen = torch.Generator().manual_seed(5)
    with torch.random.fork_rng(devices=[]):  # the learner's random state is left as it was
        torch.manual_seed(0)
        model = VisionTransformer(embed_dim=dim, depth=depth, num_heads=heads).eval()
    z = scale * torch.randn(2, 17, dim, generator=gen)  # (2, N + 1, D)
    std_in = z.std().item()
    with torch.no_grad():
        for block in model.blocks:
            z = _post_norm(block, z)
    return std_in, z.std().item()


@never_raises
def post_norm_drift_choice(answer: object) -> Verdict:
    """Exercise 06.3 (a): about what std leaves the last block, block 11, when section 4's drift cell stacks 12
    fresh post-norm blocks: one of ``DRIFT_OPTIONS``."""
    std = post_norm_stack_stds()[1]
    expected = min(DRIFT_OPTIONS, key=lambda o: abs(float(o.split()[-1]) - std))
    return choice_answer(
        answer,
        expected,
        "the std that leaves block 11 of a post-norm stack",
        DRIFT_OPTIONS,
        nudge="The exercise rests on the post-norm formula and on the LayerNorm cell's printout.",
        pointer=reread("Pre-norm and post-norm"),
    )  # no diagnosis per wrong option: three options are not to be walked through; part (b) grades the reason


#: Exercise 06.3 (b): the factor by which the tokens entering block 0 are multiplied.
SCALE_UP = 10.0


@never_raises
def post_norm_scaled_ratio(answer: object) -> Verdict:
    """Exercise 06.3 (b): with the tokens entering block 0 multiplied by ``SCALE_UP``, the std that leaves block 11
    of the 12 fresh post-norm blocks divided by the std that enters block 0."""
    std_in, std_out = post_norm_stack_stds(scale=SCALE_UP)
    return float_answer(
        answer,
        std_out / std_in,
        "the std leaving block 11 over the std entering block 0, for an input 10 times larger",
        nudge="The exercise rests on how a post-norm block's output depends on the scale of its input.",
        wrong=[
            (
                1.0,
                "that passes the input's scale through the stack unchanged.",
            ),
            (
                SCALE_UP,
                "that multiplies the scale by 10 on the way out as well; the ratio compares the std that leaves "
                "with the std that enters.",
            ),
        ],
        rel=0.05,
        pointer=reread("Pre-norm and post-norm"),
    )


class _ShortBlock(EncoderBlock):
    """An EncoderBlock that a hint names in one line, not by its whole module tree."""

    def __repr__(self) -> str:
        return f"an EncoderBlock (D = {self.norm1.normalized_shape[0]}, {self.attn.num_heads} heads)"


def _random_block(dim: int, heads: int, gen: torch.Generator) -> EncoderBlock:
    """An encoder block whose LayerNorms are not the identity, so every wrong order gives other numbers."""
    block = _ShortBlock(dim, heads).eval()
    with torch.no_grad():
        for p in block.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * (0.3 if p.ndim > 1 else 0.5))
        for norm in (block.norm1, block.norm2):
            norm.weight.add_(1.0)
    return block


@never_raises
def post_norm_block_function(func: object) -> Verdict:
    """Exercise 06.2: ``func(block, x)`` must be the post-norm forward pass, ``LN(x + f(x))`` for each part."""
    gen = torch.Generator().manual_seed(7)
    cases = []
    for b, n, d, heads in ((2, 5, 16, 4), (1, 16, 24, 3), (3, 4, 8, 2)):
        block = _random_block(d, heads, gen)
        x = torch.randn(b, n, d, generator=gen)
        with torch.no_grad():
            cases.append(((block, x), _post_norm(block, x)))
    return check_function(
        func,
        "your post-norm block",
        cases,
        mistakes=BLOCK_MISTAKES,
        nudge="The exercise rests on where post-norm puts the norm, relative to the residual sum.",
        pointer=reread("Pre-norm and post-norm"),
    )
