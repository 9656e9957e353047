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


# --- 06.4: the smallest side giving a number of tokens ---
def smallest_side(target: int, stages: list[tuple[int, int, int]]) -> int:
    """Brute force: try n = 1, 2, ... until the chain of soft splits gives ``target`` tokens."""
    n = 1
    while True:
        side = n
        for k, s, p in stages:
            side = (side + 2 * p - k) // s + 1
        if side == target:
            return n
        n += 1


def undo(target: int, stages, one_stage, backwards: bool = True) -> int:
    for k, s, p in reversed(stages) if backwards else stages:
        target = one_stage(target, k, s, p)
    return target


def side_without_padding(target: int, stages) -> int:
    return undo(target, stages, lambda t, k, s, p: (t - 1) * s + k)


def side_without_minus_one(target: int, stages) -> int:
    return undo(target, stages, lambda t, k, s, p: t * s + k - 2 * p)


def side_first_stage_first(target: int, stages) -> int:
    return undo(target, stages, lambda t, k, s, p: (t - 1) * s + k - 2 * p, backwards=False)


def largest_side(target: int, stages) -> int:
    return smallest_side(target + 1, stages) - 1


def side_by_strides(target: int, stages) -> int:
    return undo(target, stages, lambda t, k, s, p: t * s)


VALUE_CHECKS = {
    check.t2t_token_transformer_params: first_token_transformer_params(3),
    check.t2t_window_side: window_side_by_autograd(),
}
FUNCTION_CHECKS = {
    check.v_skip_function: token_attention,
    check.t2t_smallest_side_function: smallest_side,
}
MISTAKES = [
    (check.v_skip_function, attention_without_skip, "the skip is missing"),
    (check.v_skip_function, skip_before_projection, "before the projection"),
    (check.v_skip_function, skip_adds_x, "adding the input x fails"),
    (check.v_skip_function, skip_adds_x_where_it_fits, "you added x"),
    (check.v_skip_function, softmax_over_queries, "wrong axis"),
    (check.v_skip_function, unscaled, "not scaled"),
    (check.v_skip_function, scale_divided, "you divided the scores"),
    (check.v_skip_function, scale_from_chan, "chan ** -0.5"),
    (check.t2t_token_transformer_params, first_token_transformer_params(1), "one-channel image"),
    (check.t2t_token_transformer_params, first_token_transformer_params(3) - 2 * 147 - 2 * 64, "LayerNorms"),
    (check.t2t_token_transformer_params, first_token_transformer_params(3) - 147 - 64, "two vectors"),
    (check.t2t_token_transformer_params, first_token_transformer_params(3) - 2 * 147 + 2 * 64, "coming in"),
    (check.t2t_token_transformer_params, first_token_transformer_params(3) + 3 * 64, "no bias"),
    (check.t2t_token_transformer_params, first_token_transformer_params(3) - 3 * 64, "only the qkv layer"),
    (check.t2t_token_transformer_params, first_token_transformer_params(3, mlp_ratio=4), "four times wider"),
    (check.t2t_token_transformer_params, 147 * 192 + 64 * 64 + 64, "attention alone"),
    (check.t2t_token_transformer_params, 147 * 192, "qkv layer alone"),
    (check.t2t_window_side, 7 * 3 * 3, "multiplied the kernels"),
    (check.t2t_window_side, 7 + 2 + 2, "single pixels"),
    (check.t2t_window_side, 7 + 2 * 4, "two soft splits"),
    (check.t2t_window_side, 7, "first soft split's window only"),
    (check.t2t_window_side, 7 + 2 * 4 + 2 * 4, "not the first stride again"),
    (check.t2t_window_side, 7 + 2 * 4 + 2 * 2, "not the last stride alone"),
    (check.t2t_window_side, 7 + 3 * 4 + 3 * 8, "k - 1 steps"),
    (check.t2t_window_side, 4 * 2 * 2, "how far apart"),
    (check.t2t_smallest_side_function, side_without_padding, "left out the padding"),
    (check.t2t_smallest_side_function, side_without_minus_one, "t - 1 strides"),
    (check.t2t_smallest_side_function, side_first_stage_first, "from the last to the first"),
    (check.t2t_smallest_side_function, largest_side, "largest side"),
    (check.t2t_smallest_side_function, side_by_strides, "multiplying by the strides"),
]
