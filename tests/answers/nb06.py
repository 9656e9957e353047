"""Right answers for the checkers of notebook 06; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
The right answers here are computed independently of the checkers (by brute force, autograd or plain torch).
"""

from __future__ import annotations

import torch

from vitcourse import check, tokens
from vitcourse.models import T2T_STAGES


# --- 06.1: one head of a token transformer's attention, skip through v ---
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
    q, k, v = (x @ w_qkv.T).chunk(3, dim=-1)
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
    return (v + weights @ v) @ w_proj.T + b_proj


def skip_adds_x_where_it_fits(x, w_qkv, w_proj, b_proj, scale):
    """Adds x where its length equals chan and v elsewhere: runs everywhere, wrong where dim == chan."""
    mixed, v = _mixed(x, w_qkv, scale)
    out = mixed @ w_proj.T + b_proj
    return (x if x.shape[-1] == out.shape[-1] else v) + out


# --- 06.2: parameters of the first token transformer, counted on a plain torch copy of its layers ---
def first_token_transformer_params(channels: int, mlp_ratio: int = 1) -> int:
    dim, chan = channels * 7 * 7, 64
    layers = torch.nn.ModuleList(
        [
            torch.nn.LayerNorm(dim),  # norm1
            torch.nn.Linear(dim, 3 * chan, bias=False),  # qkv
            torch.nn.Linear(chan, chan),  # proj
            torch.nn.LayerNorm(chan),  # norm2
            torch.nn.Linear(chan, mlp_ratio * chan),  # mlp.fc1
            torch.nn.Linear(mlp_ratio * chan, chan),  # mlp.fc2
        ]
    )
    return sum(p.numel() for p in layers.parameters())


# --- 06.3: the square one final token's windows cover, measured with autograd ---
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


# --- 06.4: the official rebuild (reshape to sqrt(N) x sqrt(N)) run on each input, outcome observed ---
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


VALUE_CHECKS = {
    check.x_skip_choice: "raises",  # x has length 49 and the projected output 64
    check.rgb_changed_layers_choice: "norm1 and qkv",
    check.t2t_window_side: window_side_by_autograd(),
    check.sqrt_rebuild_picture: sqrt_rebuild_observed(60, 100),
    check.sqrt_rebuild_60x62: sqrt_rebuild_observed(60, 62),
    check.sqrt_rebuild_36x64: sqrt_rebuild_observed(36, 64),
}
FUNCTION_CHECKS = {
    check.v_skip_function: token_attention,
}
MISTAKES = [
    (check.v_skip_function, given_token_attention, "the given function, unchanged"),
    (check.x_skip_choice, "runs, other numbers", "matching lengths"),
    (check.x_skip_choice, "runs, same numbers", "different tensors"),
    (check.v_skip_function, attention_without_skip, "the skip is missing"),
    (check.v_skip_function, skip_before_projection, "before the projection"),
    (check.v_skip_function, skip_adds_x, "adding the input x fails"),
    (check.v_skip_function, skip_adds_x_where_it_fits, "you added x"),
    (check.v_skip_function, softmax_over_queries, "wrong axis"),
    (check.v_skip_function, unscaled, "not scaled"),
    (check.v_skip_function, scale_divided, "you divided the scores"),
    (check.v_skip_function, scale_from_chan, "chan ** -0.5"),
    (check.t2t_window_side, 7 * 3 * 3, "multiplied the kernels"),
    (check.t2t_window_side, 7 + 2 + 2, "single pixels"),
    (check.t2t_window_side, 7 + 2 * 4, "two soft splits"),
    (check.t2t_window_side, 7, "first soft split's window only"),
    (check.t2t_window_side, 7 + 2 * 4 + 2 * 4, "the first stride"),
    (check.t2t_window_side, 7 + 2 * 4 + 2 * 2, "the last stride alone"),
    (check.t2t_window_side, 7 + 3 * 4 + 3 * 8, "one step too many"),
    (check.t2t_window_side, 4 * 2 * 2, "how far apart"),
    (check.sqrt_rebuild_picture, "works", "not square"),
    (check.sqrt_rebuild_picture, "scrambles", "expected the reshape to run"),
    (check.sqrt_rebuild_60x62, "raises", "assumed the reshape fails"),
    (check.sqrt_rebuild_60x62, "scrambles", "rows and columns differ"),
    (check.sqrt_rebuild_36x64, "raises", "assumed the reshape fails"),
    (check.rgb_changed_layers_choice, "qkv", "weight matrix"),
    (check.rgb_changed_layers_choice, "norm1, qkv and proj", "proj reads"),
    (check.rgb_changed_layers_choice, "every layer", "every layer follows"),
    (check.sqrt_rebuild_36x64, "works", "were not their neighbours"),
]
