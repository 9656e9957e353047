"""Right answers for the checkers of notebook 07; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS: dict = {
    check.constant_token_attention: 1 / 16,  # LN of ones is 0, so the query is 0: uniform over 16 keys
    check.mean_pool_factor: 175 / 176,  # (sum / 176) / (sum / 175)
    check.largest_token_patch: 5,  # the brightest patch, the pale mountain face: no pixel is negative
    check.final_norm_token_size: 8.0,  # a fresh final norm gives every token entries of mean 0, spread 1: sqrt(64)
    check.attention_share_percent: 4.1,  # 12 * 2 N² D / 17.58 G = 4.1 %: N = 197 is far below the tie
    check.block_cost_tie_tokens: 4608,  # 2 N² D = 12 N D² at N = 6 D
}
FUNCTION_CHECKS: dict = {
    check.mean_pool_function: lambda f: f[:, 1:].mean(dim=1),
}
MISTAKES: list = [
    (check.attention_share_percent, 2.05, "one of the two products"),
    (check.attention_share_percent, 11.4, "include the MLP"),
    (check.attention_share_percent, 0.041, "per cent"),
    (check.attention_share_percent, 100 * 2 * 197 / (12 * 768), "linear layers alone"),
    (check.mean_pool_factor, 176 / 175, "the other way round"),
    (check.mean_pool_factor, 1 / 176, "divides by"),
    (check.mean_pool_factor, 1.0, "differ"),
    (check.mean_pool_factor, 174 / 175, "among the 175 patches"),
    (check.mean_pool_factor, 176 / 177, "its sum starts at token 1"),
    (check.mean_pool_factor, 0.9943, "close"),
    (check.mean_pool_factor, 0.99, "close"),
    (check.final_norm_token_size, 1.0, "spread (std)"),
    (check.final_norm_token_size, 64.0, "size squared"),
    (check.final_norm_token_size, 0.0, "subtracts the token's mean"),
    (check.constant_token_attention, 1.0, "sum to 1"),
    (check.constant_token_attention, 0.0, "never 0"),
    (check.constant_token_attention, 0.25, "own weights"),
    (check.constant_token_attention, 1 / 64, "length of a token"),
    (check.mean_pool_function, lambda f: f[:, 1:].sum(dim=1) / f.shape[1], "the given function"),
    (check.mean_pool_function, lambda f: f.mean(dim=1), "prediction token included"),
    (check.mean_pool_function, lambda f: f[:, :-1].mean(dim=1), "token 0"),
    (check.mean_pool_function, lambda f: f[:, 1:].mean(dim=0), "over the batch"),
    (check.mean_pool_function, lambda f: f[:, 1:].mean(dim=-1), "token length D"),
    (check.mean_pool_function, lambda f: f[:, 0], "prediction token itself"),
    (check.mean_pool_function, lambda f: f[:, 1:].sum(dim=1), "sum"),
    (check.block_cost_tie_tokens, 1536, "qkv and proj"),
    (check.block_cost_tie_tokens, 3072, "MLP as one layer"),
    (check.block_cost_tie_tokens, 9216, "two products"),
]
