"""Right answers for the checkers of notebook 09; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check, tokens
from vitcourse.models import T2T_STAGES


# --- 09.1: the square one final token's windows cover, measured with autograd ---
def window_side_by_autograd() -> int:
    probe = torch.zeros(1, 1, 200, 200, requires_grad=True)
    img = probe
    for i, (k, s, p) in enumerate(T2T_STAGES):
        grid = tokens.count_tokens(img.shape[2], img.shape[3], k, s, p)
        toks = tokens.soft_split(img, k, s, p)
        if i < len(T2T_STAGES) - 1:
            img = tokens.rebuild_image(toks, grid.rows, grid.cols)
    toks[0, (grid.rows // 2) * grid.cols + grid.cols // 2].sum().backward()
    return int((probe.grad[0, 0] != 0).any(dim=0).sum())


# --- 09.2: the official rebuild (reshape to sqrt(N) x sqrt(N)) run on each input, outcome observed ---
def sqrt_rebuild_observed(height: int, width: int) -> str:
    """Run the official reshape on stage 1's tokens (token indices) and compare with the rebuild on the grid."""
    import math

    grid = tokens.count_tokens(height, width, *T2T_STAGES[0])
    toks = tokens.soft_split(torch.zeros(1, 1, height, width), *T2T_STAGES[0])
    ids = torch.arange(toks.shape[1], dtype=torch.float32).view(1, -1, 1)  # (1, N, 1): each token's index
    side = int(math.sqrt(toks.shape[1]))
    try:
        official = ids.transpose(1, 2).reshape(1, 1, side, side)
    except RuntimeError:
        return "raises"
    right_place = tokens.rebuild_image(ids, grid.rows, grid.cols)
    same = official.shape == right_place.shape and torch.equal(official, right_place)
    return "works" if same else "scrambles"


# --- 09.3: the first token transformer's parameters, counted on the layers themselves ---
def fewer_parameters_counted() -> int:
    from vitcourse.blocks import TokenTransformer

    one, rgb = (TokenTransformer(c * 49, 64, num_heads=1, mlp_ratio=1.0) for c in (1, 3))
    return sum(p.numel() for p in rgb.parameters()) - sum(p.numel() for p in one.parameters())


def stage1_tokens(height: int, width: int) -> int:
    return tokens.soft_split(torch.zeros(1, 1, height, width), *T2T_STAGES[0]).shape[1]


VALUE_CHECKS: dict = {
    check.t2t_window_side: window_side_by_autograd(),
    check.sqrt_rebuild_picture: sqrt_rebuild_observed(60, 100),
    check.sqrt_rebuild_60x62: sqrt_rebuild_observed(60, 62),
    check.sqrt_rebuild_36x64: sqrt_rebuild_observed(36, 64),
    check.sqrt_rebuild_token_counts: tuple(stage1_tokens(h, w) for h, w in ((60, 100), (60, 62), (36, 64))),
    check.rgb_fewer_parameters: fewer_parameters_counted(),
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.t2t_window_side, 7 * 3 * 3, "multiplied the kernels"),
    (check.t2t_window_side, 7 + 2 + 2, "single pixels"),
    (check.t2t_window_side, 7 + 2 * 4, "two soft splits"),
    (check.t2t_window_side, 7, "first soft split's window only"),
    (check.t2t_window_side, 7 + 2 * 4 + 2 * 4, "the first stride"),
    (check.t2t_window_side, 7 + 2 * 4 + 2 * 2, "the last stride alone"),
    (check.t2t_window_side, 7 + 3 * 4 + 3 * 8, "one step too many"),
    (check.t2t_window_side, 4 * 2 * 2, "how far apart"),
    (check.sqrt_rebuild_token_counts, (14 * 24, 14 * 14, 8 * 15), "without the padding"),
    (check.sqrt_rebuild_token_counts, (416, 256, 170), "rounded up"),
    (check.sqrt_rebuild_token_counts, (8 * 14, 8 * 8, 5 * 9), "non-overlapping"),
    (check.sqrt_rebuild_token_counts, (374, 224, 143), "from 0"),
    (check.sqrt_rebuild_token_counts, 375, "three whole numbers"),
    (check.rgb_fewer_parameters, -19012, "positive number"),
    (check.rgb_fewer_parameters, 192 * 98, "qkv alone"),
    (check.rgb_fewer_parameters, 192 * 98 + 98, "two numbers per entry"),
    (check.rgb_fewer_parameters, 64 * 98 + 2 * 98, "three vectors"),
    (check.rgb_fewer_parameters, 2 * 22114, "three copies"),
    (check.rgb_fewer_parameters, 41126, "RGB block's whole count"),
]
