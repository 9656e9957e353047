"""Attention rollout (vitcourse.rollout) on hand-built weights with known answers, and on a tiny ViT."""

import pytest
import torch

from vitcourse import VisionTransformer
from vitcourse.rollout import attention_rollout, rollout_for_model


def _weights(seed: int, batch: int = 2, heads: int = 3, n: int = 7) -> torch.Tensor:
    """(batch, heads, n, n) random softmax rows."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, heads, n, n, generator=g).mul(2).softmax(-1)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fusion", ["mean", "max", "min"])
@pytest.mark.parametrize("residual", [0.0, 0.3, 0.5, 0.9])
def test_rows_sum_to_one(seed: int, fusion: str, residual: float) -> None:
    result = attention_rollout([_weights(seed + k) for k in range(3)], residual, fusion)
    assert result.shape == (2, 7, 7)
    torch.testing.assert_close(result.sum(-1), torch.ones(2, 7))
    assert (result >= 0).all()


@pytest.mark.parametrize("residual", [0.0, 0.25, 0.5])
def test_one_block_is_the_mixed_matrix(residual: float) -> None:
    w = _weights(0)
    mixed = residual * torch.eye(7) + (1 - residual) * w.mean(1)
    expected = mixed / mixed.sum(-1, keepdim=True)
    torch.testing.assert_close(attention_rollout([w], residual), expected, rtol=0, atol=1e-7)
    peak = residual * torch.eye(7) + (1 - residual) * w.amax(1)
    torch.testing.assert_close(attention_rollout([w], residual, "max"), peak / peak.sum(-1, keepdim=True))


def test_later_blocks_multiply_from_the_left() -> None:
    w1, w2 = _weights(1), _weights(2)
    m1 = 0.5 * torch.eye(7) + 0.5 * w1.mean(1)
    m2 = 0.5 * torch.eye(7) + 0.5 * w2.mean(1)
    torch.testing.assert_close(attention_rollout([w1, w2]), m2 @ m1)


def test_residual_one_is_the_identity() -> None:
    result = attention_rollout([_weights(k) for k in range(4)], residual=1.0)
    torch.testing.assert_close(result, torch.eye(7).expand(2, 7, 7))


def test_mean_of_identical_heads_is_one_head() -> None:
    one = _weights(3, heads=1)
    same = one.expand(2, 4, 7, 7)
    for fusion in ("mean", "max", "min"):
        torch.testing.assert_close(attention_rollout([same], 0.0, fusion), one[:, 0])


def test_bad_inputs_are_refused() -> None:
    w = _weights(0)
    with pytest.raises(TypeError, match="weights"):
        attention_rollout(w)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one"):
        attention_rollout([])
    with pytest.raises(ValueError, match=r"weights\[0\]"):
        attention_rollout([w[0]])  # (heads, N, N): no batch axis
    with pytest.raises(ValueError, match=r"weights\[1\]"):
        attention_rollout([w, _weights(1, n=5)])
    with pytest.raises(ValueError, match=r"weights\[0\]"):
        attention_rollout([w[..., :5]])
    with pytest.raises(ValueError, match="negative"):
        attention_rollout([-w])
    with pytest.raises(TypeError, match=r"weights\[0\]"):
        attention_rollout([w.long()])
    with pytest.raises(ValueError, match="residual"):
        attention_rollout([w], residual=1.5)
    with pytest.raises(TypeError, match="residual"):
        attention_rollout([w], residual="half")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="head_fusion"):
        attention_rollout([w], head_fusion="median")
    with pytest.raises(ValueError, match="residual > 0"):
        attention_rollout([torch.zeros(1, 1, 3, 3)], residual=0.0)


def _tiny_vit() -> VisionTransformer:
    torch.manual_seed(0)
    return VisionTransformer(img_size=(20, 30), patch_size=10, embed_dim=16, depth=3, num_heads=2)


def test_rollout_for_model_shape_and_sums() -> None:
    model = _tiny_vit().eval()
    images = torch.rand(2, 1, 20, 30, generator=torch.Generator().manual_seed(1))
    maps = rollout_for_model(model, images)
    assert maps.shape == (2, 2, 3)
    # the same weights, block by block, through the model's own attention_weights
    full = attention_rollout([model.attention_weights(images, block) for block in range(3)])
    torch.testing.assert_close(full.sum(-1), torch.ones(2, 7))
    torch.testing.assert_close(maps, full[:, 0, 1:].reshape(2, 2, 3))
    # the patches' shares and the prediction token's own share make 1
    torch.testing.assert_close(maps.sum((1, 2)) + full[:, 0, 0], torch.ones(2))
    assert all(len(blk.attn._forward_hooks) == 0 for blk in model.blocks)  # hooks removed


def test_rollout_for_model_refuses_bad_input() -> None:
    model = _tiny_vit()
    with pytest.raises(TypeError, match="model"):
        rollout_for_model(torch.nn.Linear(2, 2), torch.rand(1, 1, 20, 30))
    with pytest.raises(ValueError, match="images"):
        rollout_for_model(model, torch.rand(1, 1, 20, 20))
    with pytest.raises(ValueError, match="residual"):
        rollout_for_model(model, torch.rand(1, 1, 20, 30), residual=-0.1)
