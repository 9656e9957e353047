"""Right answers for the checkers of notebook 09; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check, tokens
from vitcourse.models import T2T_STAGES


# --- 09.1: one final token's square and the columns two neighbours share, measured with autograd ---
def _columns_reached_by_autograd() -> tuple[torch.Tensor, torch.Tensor]:
    """The pixel columns that the centre final token and its right-hand neighbour reach on a blank 200 x 200
    image, found with autograd through the three soft splits: two (200,) boolean masks."""
    probe = torch.zeros(1, 1, 200, 200, requires_grad=True)
    img = probe
    for i, (k, s, p) in enumerate(T2T_STAGES):
        grid = tokens.count_tokens(img.shape[2], img.shape[3], k, s, p)
        toks = tokens.soft_split(img, k, s, p)
        if i < len(T2T_STAGES) - 1:
            img = tokens.rebuild_image(toks, grid.rows, grid.cols)
    centre = (grid.rows // 2) * grid.cols + grid.cols // 2
    (first,) = torch.autograd.grad(toks[0, centre].sum(), probe, retain_graph=True)
    (second,) = torch.autograd.grad(toks[0, centre + 1].sum(), probe)
    return (first[0, 0] != 0).any(dim=0), (second[0, 0] != 0).any(dim=0)


def shared_columns_by_autograd() -> int:
    """The columns two neighbouring final tokens' windows both reach."""
    first, second = _columns_reached_by_autograd()
    return int((first & second).sum())


def window_side_by_autograd() -> int:
    """The width of one final token's square."""
    first, _ = _columns_reached_by_autograd()
    return int(first.sum())


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
def extra_parameters_counted() -> int:
    """The 4-channel model's first token transformer minus the RGB one's, counted on the presets themselves."""
    from vitcourse.models import create_model

    with torch.device("meta"):
        rgb, four = (create_model("t2t_vit_t_14", in_chans=c).tokens_to_token.attention1 for c in (3, 4))
    return sum(p.numel() for p in four.parameters()) - sum(p.numel() for p in rgb.parameters())


def stage1_tokens(height: int, width: int) -> int:
    return tokens.soft_split(torch.zeros(1, 1, height, width), *T2T_STAGES[0]).shape[1]


VALUE_CHECKS: dict = {
    check.t2t_window_side: window_side_by_autograd(),
    check.t2t_shared_columns: shared_columns_by_autograd(),
    check.sqrt_rebuild_picture: sqrt_rebuild_observed(60, 100),
    check.sqrt_rebuild_60x62: sqrt_rebuild_observed(60, 62),
    check.sqrt_rebuild_36x64: sqrt_rebuild_observed(36, 64),
    check.sqrt_rebuild_token_counts: tuple(stage1_tokens(h, w) for h, w in ((60, 100), (60, 62), (36, 64))),
    check.depth_extra_parameters: extra_parameters_counted(),
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.t2t_window_side, 13, "added the kernels"),
    (check.t2t_window_side, 11, "in cells of its own grid"),
    (check.t2t_window_side, 63, "multiplied the kernels"),
    (check.t2t_window_side, 16, "how far apart"),
    (check.t2t_window_side, 73, "its own stride"),
    (check.t2t_window_side, 43, "already counted"),
    (check.t2t_window_side, 15, "two soft splits"),
    (check.t2t_window_side, 30, "How far apart in the image"),
    (check.t2t_shared_columns, 31, "how wide one token's windows reach"),
    (check.t2t_shared_columns, 16, "a distance between"),
    (check.t2t_shared_columns, 47, "together"),
    (check.t2t_shared_columns, 0, "do overlap"),
    (check.t2t_shared_columns, 27, "the first stride"),
    (check.t2t_shared_columns, 29, "the last stride alone"),
    (check.t2t_shared_columns, 7, "two soft splits"),
    (check.t2t_shared_columns, 20, "count the columns in both"),
    (check.sqrt_rebuild_token_counts, (14 * 24, 14 * 14, 8 * 15), "without the padding"),
    (check.sqrt_rebuild_token_counts, (416, 256, 170), "rounded up"),
    (check.sqrt_rebuild_token_counts, (8 * 14, 8 * 8, 5 * 9), "non-overlapping"),
    (check.sqrt_rebuild_token_counts, (374, 224, 143), "from 0"),
    (check.sqrt_rebuild_token_counts, 375, "three whole numbers"),
    (check.depth_extra_parameters, -9506, "positive number"),
    (check.depth_extra_parameters, 192 * 49, "qkv alone"),
    (check.depth_extra_parameters, 192 * 49 + 49, "two numbers per entry"),
    (check.depth_extra_parameters, 64 * 49 + 2 * 49, "three vectors"),
    (check.depth_extra_parameters, 258 * 49, "proj too"),
    (check.depth_extra_parameters, 22114, "a whole one-channel block"),
    (check.depth_extra_parameters, 28518, "with a one-channel one"),
    (check.depth_extra_parameters, 19012, "what RGB adds"),
    (check.depth_extra_parameters, 50632, "4-channel block's whole count"),
    (check.depth_extra_parameters, 41126, "RGB block's whole count"),
    (check.depth_extra_parameters, 9000, "Only a layer whose size depends"),
]
