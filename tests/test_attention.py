import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from vitcourse.attention import Attention, clearest_row


def _reference_mha(att: Attention) -> nn.MultiheadAttention:
    ref = nn.MultiheadAttention(att.chan, att.num_heads, bias=True, batch_first=True)
    with torch.no_grad():
        ref.in_proj_weight.copy_(att.qkv.weight)
        ref.in_proj_bias.copy_(att.qkv.bias)
        ref.out_proj.weight.copy_(att.proj.weight)
        ref.out_proj.bias.copy_(att.proj.bias)
    return ref


@pytest.mark.parametrize("heads", [1, 4])
def test_equals_multihead_attention(heads: int) -> None:
    att = Attention(64, 64, num_heads=heads, qkv_bias=True)
    x = torch.randn(3, 10, 64)
    expected, expected_weights = _reference_mha(att)(x, x, x, need_weights=True, average_attn_weights=False)
    out, steps = att.steps(x)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(steps.weights, expected_weights, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(att(x), expected, rtol=1e-5, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(
    heads=st.sampled_from([1, 2, 4]),
    n=st.integers(1, 30),
    dim=st.integers(1, 40),
    v_skip=st.booleans(),
)
def test_fused_equals_step_by_step(heads: int, n: int, dim: int, v_skip: bool) -> None:
    att = Attention(dim, 16, num_heads=heads, v_skip=v_skip)
    x = torch.randn(2, n, dim)
    step, steps = att.steps(x)
    assert att.fused
    torch.testing.assert_close(att(x), step, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(steps.weights.sum(-1), torch.ones(2, heads, n), rtol=1e-5, atol=1e-5)


def test_equals_scaled_dot_product_attention_on_intermediates() -> None:
    att = Attention(49, 64, num_heads=4)
    x = torch.randn(13, 100, 49)
    _, s = att.steps(x)
    assert s.q.shape == (13, 4, 100, 16)
    assert s.scores.shape == (13, 4, 100, 100)
    torch.testing.assert_close(s.heads, F.scaled_dot_product_attention(s.q, s.k, s.v), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(s.scores, s.q @ s.k.transpose(-2, -1) / 4.0)  # scale 16 ** -0.5


def test_walkthrough_shapes_and_v_skip() -> None:
    att = Attention(49, 64, num_heads=1, v_skip=True)
    x = torch.randn(13, 100, 49)
    out, s = att.steps(x)
    assert s.q.shape == (13, 1, 100, 64)
    assert s.scores.shape == (13, 1, 100, 100)
    assert out.shape == (13, 100, 64)
    torch.testing.assert_close(out, att.proj(s.merged) + s.v.squeeze(1))


def test_weight_counts() -> None:
    dim, chan = 49, 64
    att = Attention(dim, chan, qkv_bias=False)
    assert att.qkv.weight.numel() == dim * chan * 3
    assert sum(p.numel() for p in att.proj.parameters()) == chan**2 + chan
    assert (
        sum(p.numel() for p in Attention(dim, chan, qkv_bias=True).qkv.parameters())
        == dim * chan * 3 + 3 * chan
    )


def test_permutation_equivariance() -> None:
    att = Attention(9, 9, num_heads=1)
    x = torch.randint(1, 20, (1, 4, 9)).float()
    perm = torch.tensor([2, 1, 0, 3])  # swap tokens 0 and 2
    out, s = att.steps(x)
    out_p, s_p = att.steps(x[:, perm])
    torch.testing.assert_close(out_p, out[:, perm])
    torch.testing.assert_close(s_p.scores, s.scores[:, :, perm][:, :, :, perm])


def test_custom_scale() -> None:
    att = Attention(8, 8, qk_scale=1.0)
    _, s = att.steps(torch.randn(1, 3, 8))
    torch.testing.assert_close(s.scores, s.q @ s.k.transpose(-2, -1))


def test_bad_input() -> None:
    with pytest.raises(
        ValueError, match=r"num_heads=5 does not divide chan=64; valid head counts: \[1, 2, 4, 8"
    ):
        Attention(64, 64, num_heads=5)
    with pytest.raises(ValueError, match="x has tokens of length 10 but this module was built for dim=64"):
        Attention(64)(torch.randn(1, 3, 10))
    with pytest.raises(ValueError, match=r"x must have 3 dimensions \(B, N, D\)"):
        Attention(64)(torch.randn(3, 64))


def test_clearest_row_picks_the_row_that_stands_out() -> None:
    weights = torch.full((2, 3, 6, 6), 1 / 6)  # (blocks, heads, N, N), uniform rows
    weights[1, 2, 4] = torch.tensor([0.05, 0.05, 0.6, 0.1, 0.1, 0.1])  # query 4's row: key 2 stands out
    weights[0, 0, 3] = torch.tensor([0.05, 0.05, 0.05, 0.05, 0.05, 0.75])  # clearer, but a column mix-up:
    weights[0, 0, 4, 3] = 0.9  # column 3's largest weight is on row 4, next to key 5
    found = clearest_row(weights, first=1)
    assert (found.index, found.query, found.key) == ((1, 2), 4, 2)
    assert found.column_reading not in (1, 2, 3) and found.ratio == pytest.approx(6.0)


def test_clearest_row_refuses_bad_input() -> None:
    with pytest.raises(TypeError, match="weights must be a torch.Tensor"):
        clearest_row([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"weights must have shape \(\.\.\., N, N\)"):
        clearest_row(torch.ones(4, 4))
    with pytest.raises(ValueError, match="first must be below N - 1"):
        clearest_row(torch.ones(1, 4, 4) / 4, first=3)
    with pytest.raises(ValueError, match="no row of weights"):
        clearest_row(torch.eye(4)[None])  # every row's largest weight is on the diagonal
