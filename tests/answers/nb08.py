"""Right answers for the checkers of notebook 08; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check
from vitcourse.attention import Attention


# --- 08.3: one head of a token transformer's attention, skip through v ---
def token_attention(x, w_qkv, w_proj, b_proj, scale):
    q, k, v = (x @ w_qkv.T).chunk(3, dim=-1)  # each (B, N, chan)
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)  # (B, N, N)
    return v + (weights @ v) @ w_proj.T + b_proj


def _mixed(x, w_qkv, scale, axis=-1):
    q, k, v = (x @ w_qkv.T).chunk(3, dim=-1)
    return torch.softmax(q @ k.transpose(-2, -1) * scale, dim=axis) @ v, v


def attention_without_skip(x, w_qkv, w_proj, b_proj, scale):
    mixed, _ = _mixed(x, w_qkv, scale)
    return mixed @ w_proj.T + b_proj


def skip_before_projection(x, w_qkv, w_proj, b_proj, scale):
    mixed, v = _mixed(x, w_qkv, scale)
    return (mixed + v) @ w_proj.T + b_proj


def skip_adds_x(x, w_qkv, w_proj, b_proj, scale):
    mixed, _ = _mixed(x, w_qkv, scale)
    return x + mixed @ w_proj.T + b_proj  # raises wherever dim != chan


def softmax_over_queries(x, w_qkv, w_proj, b_proj, scale):
    mixed, v = _mixed(x, w_qkv, scale, axis=-2)
    return v + mixed @ w_proj.T + b_proj


def unscaled(x, w_qkv, w_proj, b_proj, scale):
    return token_attention(x, w_qkv, w_proj, b_proj, 1.0)


def scale_divided(x, w_qkv, w_proj, b_proj, scale):
    return token_attention(x, w_qkv, w_proj, b_proj, 1 / scale)


def scale_from_chan(x, w_qkv, w_proj, b_proj, scale):
    return token_attention(x, w_qkv, w_proj, b_proj, w_proj.shape[0] ** -0.5)


def given_token_attention(x, w_qkv, w_proj, b_proj, scale):
    """The notebook's given function, unchanged: v added before the projection."""
    chan = w_proj.shape[0]
    q = x @ w_qkv[:chan].T  # (B, N, chan)
    k = x @ w_qkv[chan : 2 * chan].T  # (B, N, chan)
    v = x @ w_qkv[2 * chan :].T  # (B, N, chan)
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)  # (B, N, N)
    return (v + weights @ v) @ w_proj.T + b_proj  # (B, N, chan)


def with_the_package(x, w_qkv, w_proj, b_proj, scale):
    """Right numbers, but the package's attention does the work: a "write it yourself" answer must fail."""
    dim, chan = x.shape[-1], w_proj.shape[0]
    attention = Attention(dim, chan, num_heads=1, qkv_bias=False, qk_scale=scale, v_skip=True, fused=False)
    with torch.no_grad():
        attention.qkv.weight.copy_(w_qkv)
        attention.proj.weight.copy_(w_proj)
        attention.proj.bias.copy_(b_proj)
        return attention(x)


def with_torch_attention(x, w_qkv, w_proj, b_proj, scale):
    """Right numbers from torch's fused attention: must fail too."""
    q, k, v = (x @ w_qkv.T).chunk(3, dim=-1)
    mixed = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)
    return v + mixed @ w_proj.T + b_proj


def skip_adds_x_where_it_fits(x, w_qkv, w_proj, b_proj, scale):
    """Adds x where its length equals chan and v elsewhere: runs everywhere, wrong where dim == chan."""
    mixed, v = _mixed(x, w_qkv, scale)
    out = mixed @ w_proj.T + b_proj
    return (x if x.shape[-1] == out.shape[-1] else v) + out


VALUE_CHECKS: dict = {
    check.t2t_input_sides: (211, 226),
    check.t2t_grid_sides: (53, 56, 27, 28),
    check.plain_rebuild_channel0: (0, 10),
    check.t2t_cut_rows: [1, 5, 9],
    check.t2t_whole_share: 9 / 16,
    check.v_skip_row_sum: 2,
}
FUNCTION_CHECKS: dict = {
    check.v_skip_function: token_attention,
}
MISTAKES: list = [
    (check.t2t_input_sides, (226, 211), "smaller side comes first"),
    (check.t2t_input_sides, 211, "pair (smallest, largest), not one number"),
    (check.t2t_input_sides, (224, 224), "not the only one"),
    (check.t2t_input_sides, (211, 214), "only the first split's rounding"),
    (check.t2t_input_sides, (239, 254), "without the padding"),
    (check.t2t_input_sides, (196, 211), "rounded up"),
    (check.t2t_input_sides, (217, 232), "wrong order"),
    (check.t2t_input_sides, (211, 211), "one side twice"),
    (check.t2t_input_sides, (211, 224), "paper's example, not necessarily an end"),
    (check.t2t_input_sides, (211.0, 226.5), "whole numbers"),
    (check.t2t_grid_sides, (27, 28, 53, 56), "grid after stage 1, which is larger"),
    (check.t2t_grid_sides, (56, 56, 28, 28), "the grids that 224 passes through"),
    (check.t2t_grid_sides, (50, 53, 26, 27), "rounded up"),
    (check.t2t_grid_sides, (59, 62, 29, 30), "without the padding"),
    (check.t2t_grid_sides, (56, 53, 27, 28), "smallest, then largest"),
    (check.t2t_grid_sides, (53.5, 56, 27, 28), "four ints"),
    (check.t2t_grid_sides, (53, 56), "expected four whole numbers"),
    (check.plain_rebuild_channel0, (10, 0), "meant to give"),
    (check.plain_rebuild_channel0, (0, 1), "not column by column"),
    (check.plain_rebuild_channel0, (0, 6), "holds w values"),
    (check.plain_rebuild_channel0, (1, 11), "from 0"),
    (check.plain_rebuild_channel0, (0, 0, 59), "two whole numbers (token, entry)"),
    (check.plain_rebuild_channel0, None, "two whole numbers (token, entry)"),
    (check.t2t_cut_rows, [2, 6, 10], "rows where windows start"),
    (check.t2t_cut_rows, [3, 7, 11], "started the first window at row 0"),
    (check.t2t_cut_rows, [], "start only every s rows"),
    (check.t2t_cut_rows, [0, 2, 3, 4, 6, 7, 8, 10, 11], "rows where a block fits"),
    (check.t2t_cut_rows, [1, 5], "stops early"),
    (check.t2t_cut_rows, 1, "not one number"),
    (check.t2t_cut_rows, [1.0, 5.0], "list of whole numbers"),
    (check.t2t_whole_share, 0.75, "counts the rows only"),
    (check.t2t_whole_share, 0.4375, "where the block is cut"),
    (check.t2t_whole_share, 0.25, "share of top rows that are cut"),
    (check.t2t_whole_share, 0, "not whole everywhere"),
    (check.t2t_whole_share, 1, "start only every s rows"),
    (check.t2t_whole_share, 56.25, "not a percentage"),
    (check.t2t_whole_share, -0.5, "between 0 and 1"),
    (check.t2t_whole_share, "0.56", "expected a number"),
    (check.v_skip_row_sum, 1, "softmax's own row sum"),
    (check.v_skip_row_sum, 0, "cancels nothing"),
    (check.v_skip_row_sum, "two", "expected a number"),
    (check.v_skip_function, given_token_attention, "the given function, unchanged"),
    (check.v_skip_function, with_the_package, "already does the job"),
    (check.v_skip_function, with_torch_attention, "already does the job"),
    (check.v_skip_function, attention_without_skip, "the skip is missing"),
    (check.v_skip_function, skip_before_projection, "what proj does to v"),
    (check.v_skip_function, skip_adds_x, "adding the input x fails"),
    (check.v_skip_function, skip_adds_x_where_it_fits, "you added x"),
    (check.v_skip_function, softmax_over_queries, "wrong axis"),
    (check.v_skip_function, unscaled, "not scaled"),
    (check.v_skip_function, scale_divided, "you divided the scores"),
    (check.v_skip_function, scale_from_chan, "chan ** -0.5"),
]
