"""Right answers for the checkers of notebook 06; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check


def _post_norm(b, x):
    x = b.norm1(x + b.attn(x))
    return b.norm2(x + b.mlp(x))


def _pre_norm(b, x):
    x = x + b.attn(b.norm1(x))
    return x + b.mlp(b.norm2(x))


VALUE_CHECKS: dict = {
    check.slides_token_count: 32,  # one row per batch slot; each gets its own image's gradient
    check.slides_token_count_one_image: 2,  # rows of one image get equal gradients: one vector per image
    check.post_norm_drift_choice: "about 1.0",  # each post-norm block ends with a fresh LayerNorm: std 1
    check.post_norm_scaled_ratio: 0.1,  # the last LayerNorm sets every token's std to 1: 1 out for 10 in
}
FUNCTION_CHECKS: dict = {
    check.post_norm_block_function: _post_norm,
}
MISTAKES: list = [
    (check.slides_token_count, 768, "entries of one token"),
    (check.slides_token_count, 32 * 768, "every entry"),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: y + b.norm2(b.mlp(y)))(b.norm1(x) + b.attn(x)),
        "the given block",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: y + b.norm2(b.mlp(y)))(b.norm1(x + b.attn(x))),
        "the other still",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(b.norm1(x) + b.attn(x)),
        "the other still",
    ),
    (check.post_norm_block_function, _pre_norm, "pre-norm"),
    (check.post_norm_block_function, lambda b, x: b.norm2(b.mlp(b.norm1(b.attn(x)))), "both residual"),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(b.norm1(b.attn(x))),
        "first residual is missing",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(b.mlp(y)))(b.norm1(x + b.attn(x))),
        "second residual is missing",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: y + b.norm2(b.mlp(y)))(x + b.norm1(b.attn(x))),
        "output only",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(x + b.attn(x)),
        "norm1 is missing",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm1(y + b.mlp(y)))(b.norm2(x + b.attn(x))),
        "swapped",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(y + b.mlp(b.norm2(y))))(b.norm1(x + b.attn(b.norm1(x)))),
        "a norm too many",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(y + b.attn(y)))(b.norm1(x + b.mlp(x))),
        "MLP runs before the attention",
    ),
    (check.slides_token_count_one_image, 16, "slots that hold one image"),
    (check.slides_token_count_one_image, 0, "at least one"),
    (check.slides_token_count_one_image, 768, "entries of one token"),
    (check.post_norm_scaled_ratio, 1.0, "input's scale"),
    (check.post_norm_scaled_ratio, 10.0, "multiplies the scale"),
]
