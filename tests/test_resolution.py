"""A ViT at another image size (vitcourse.resolution), against F.interpolate and the position module."""

import dataclasses

import pytest
import torch

from vitcourse import VisionTransformer, train
from vitcourse.position import resize_position_embedding
from vitcourse.resolution import MAX_SCALE, at_resolution, fit_images, upscale


def _vit(pos_embed: str = "learned", seed: int = 0) -> VisionTransformer:
    torch.manual_seed(seed)
    return VisionTransformer(
        (60, 100),
        10,
        1,
        num_classes=16,
        embed_dim=16,
        depth=2,
        num_heads=2,
        mlp_ratio=2.0,
        pos_embed=pos_embed,
    ).eval()


@pytest.mark.parametrize("scale", [1, 2, 3])
def test_upscale_repeats_every_pixel(scale: int) -> None:
    images = torch.rand(2, 1, 6, 10)
    big = upscale(images, scale)
    expected = images.repeat_interleave(scale, dim=2).repeat_interleave(scale, dim=3)
    assert big.shape == (2, 1, 6 * scale, 10 * scale)
    torch.testing.assert_close(big, expected, rtol=0, atol=0)


def test_upscale_and_fit_images_refuse_bad_input() -> None:
    with pytest.raises(ValueError, match="scale must be a whole number from 1 to"):
        upscale(torch.rand(1, 1, 6, 10), MAX_SCALE + 1)
    with pytest.raises(ValueError, match="scale"):
        upscale(torch.rand(1, 1, 6, 10), 0)
    with pytest.raises(ValueError, match="images"):
        upscale(torch.rand(6, 10), 2)
    model = at_resolution(_vit(), 2)
    with pytest.raises(ValueError, match="cannot be fitted"):
        fit_images(torch.rand(1, 1, 50, 100), model)
    with pytest.raises(TypeError, match="model must be a vitcourse"):
        fit_images(torch.rand(1, 1, 60, 100), torch.nn.Linear(2, 2))


def test_fit_images_upscales_to_the_model() -> None:
    images = torch.rand(3, 1, 60, 100)
    assert fit_images(images, _vit()) is images
    torch.testing.assert_close(fit_images(images, at_resolution(_vit(), 2)), upscale(images, 2))


def test_at_scale_one_the_copy_is_the_model() -> None:
    model = _vit()
    copy = at_resolution(model, 1)
    images = torch.rand(4, 1, 60, 100)
    torch.testing.assert_close(copy(images), model(images))
    assert copy is not model and copy.pos_embed.data_ptr() != model.pos_embed.data_ptr()


def test_at_resolution_resizes_the_table_in_2d_and_copies_every_other_weight() -> None:
    model = _vit()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    big = at_resolution(model, 2)
    assert big.patch_embed.img_size == (120, 200) and big.num_patches == 12 * 20
    expected = resize_position_embedding(model.pos_embed.detach(), (6, 10), (12, 20))
    torch.testing.assert_close(big.pos_embed.detach(), expected)
    for name, value in model.state_dict().items():
        torch.testing.assert_close(value, before[name], rtol=0, atol=0)  # the model is left as it was
        if name != "pos_embed":
            torch.testing.assert_close(big.state_dict()[name], value, rtol=0, atol=0)
    assert big(torch.rand(2, 1, 120, 200)).shape == (2, 16)


def test_the_control_draws_a_fresh_table_from_its_seed() -> None:
    model = _vit()
    fresh = at_resolution(model, 2, resize_pos=False, seed=3)
    again = at_resolution(model, 2, resize_pos=False, seed=3)
    other = at_resolution(model, 2, resize_pos=False, seed=4)
    carried = at_resolution(model, 2)
    torch.testing.assert_close(fresh.pos_embed, again.pos_embed, rtol=0, atol=0)
    assert not torch.equal(fresh.pos_embed, other.pos_embed)
    assert not torch.allclose(fresh.pos_embed, carried.pos_embed)
    assert (
        fresh.pos_embed.abs().max() <= 0.04 + 1e-7
    )  # drawn as a learned table starts: std 0.02, cut at 2 std


def test_at_resolution_without_a_table_and_refusals() -> None:
    blind = _vit("none")
    big = at_resolution(blind, 2)
    assert big.pos_embed is None
    images = torch.rand(2, 1, 60, 100)
    # no position embedding: the output is a function of the set of patch tokens, each patch now 4 patches
    assert big(upscale(images, 2)).shape == (2, 16)
    with pytest.raises(ValueError, match="sinusoidal"):
        at_resolution(_vit("sinusoidal"), 2)
    with pytest.raises(TypeError, match="model must be"):
        at_resolution(torch.nn.Linear(2, 2), 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="60 x 100"):
        at_resolution(at_resolution(_vit(), 2), 2)
    with pytest.raises(ValueError, match="scale"):
        at_resolution(_vit(), MAX_SCALE + 1)
    with pytest.raises(ValueError, match="seed"):
        at_resolution(_vit(), 2, resize_pos=False, seed=-1)


def test_train_config_scale_and_start_from_are_checked() -> None:
    with pytest.raises(ValueError, match="scale must be a whole number"):
        train.TrainConfig(scale=MAX_SCALE + 1)
    with pytest.raises(ValueError, match="start_from needs model='vit'"):
        train.TrainConfig(model="t2t", start_from=train.SHIPPED[0])
    with pytest.raises(TypeError, match="start_from"):
        train.TrainConfig(start_from=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="start_from must be one of"):
        train.train(train.TrainConfig(start_from="vit_nowhere", steps=1, batch_size=2), progress=False)
    shipped = train.SHIPPED_CONFIGS["vit_where"]
    other = dataclasses.replace(shipped, embed_dim=32, start_from="vit_where", steps=1, batch_size=2, scale=2)
    with pytest.raises(ValueError, match="other settings \\(embed_dim\\)"):
        train.train(other, progress=False)


def test_a_scaled_run_trains_on_upscaled_scenes() -> None:
    config = train.TrainConfig(
        task="where", patch_size=10, scale=2, steps=2, batch_size=4, embed_dim=16, num_heads=2, train_scenes=8
    )
    result = train.train(config, progress=False, eval_size=8)
    assert result.model.patch_embed.img_size == (120, 200)
    assert len(result.losses) == 2 and 0 <= result.metrics["accuracy"] <= 1
