"""The three answers to data scale (vitcourse.variants) and masked patch prediction (vitcourse.masked), checked
against published parameter counts, torch's own layers and closed forms."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from vitcourse import datascale, masked, models, probes, variants
from vitcourse.tokens import patchify


@pytest.mark.parametrize(
    ("dim", "heads", "published"),
    [(192, 3, 5_910_800), (384, 6, 22_436_432), (768, 12, 87_338_192)],  # timm deit_*_distilled_patch16_224
)
def test_distilled_vit_matches_deit_parameter_counts(dim: int, heads: int, published: int) -> None:
    with torch.device("meta"):
        model = variants.DistilledViT(224, 16, 3, num_classes=1000, embed_dim=dim, depth=12, num_heads=heads)
    assert sum(p.numel() for p in model.parameters()) == published
    with torch.device("meta"):
        plain = models.VisionTransformer(
            224, 16, 3, num_classes=1000, embed_dim=dim, depth=12, num_heads=heads
        )
    # the distillation token, its position slot and its head: D + D + (D * 1000 + 1000)
    assert published - sum(p.numel() for p in plain.parameters()) == 2 * dim + dim * 1000 + 1000


def test_distilled_vit_tokens_heads_and_test_rule() -> None:
    torch.manual_seed(0)
    model = variants.DistilledViT((60, 100), 10, 1, num_classes=5, embed_dim=32, depth=1, num_heads=2)
    images = torch.rand(3, 1, 60, 100)
    assert model.embed(images).shape == (3, 62, 32)  # cls, dist, 60 patches
    model.train()
    cls_logits, dist_logits = model(images)
    assert cls_logits.shape == dist_logits.shape == (3, 5)
    assert not torch.allclose(cls_logits, dist_logits)
    model.eval()
    a, b = model.forward_both(images)
    expected = ((a.softmax(-1) + b.softmax(-1)) / 2).log()
    torch.testing.assert_close(model(images), expected)
    assert "dist_token" in model.no_weight_decay()
    with pytest.raises(ValueError, match="pos_embed='learned'"):
        variants.DistilledViT((60, 100), 10, 1, pos_embed="none")


def test_distillation_loss_is_deit_hard_label_rule() -> None:
    torch.manual_seed(1)
    cls_logits, dist_logits, teacher = torch.randn(4, 3), torch.randn(4, 3), torch.randn(4, 3)
    labels = torch.tensor([0, 1, 2, 0])
    expected = 0.5 * F.cross_entropy(cls_logits, labels) + 0.5 * F.cross_entropy(
        dist_logits, teacher.argmax(-1)
    )
    torch.testing.assert_close(
        variants.distillation_loss((cls_logits, dist_logits), labels, teacher), expected
    )


def test_conv_stem_makes_the_patch_grid() -> None:
    stem = variants.ConvStem((60, 100), 1, 64)
    tokens = stem(torch.rand(2, 1, 60, 100))
    patch = models.VisionTransformer((60, 100), 10, 1, embed_dim=64, depth=1, num_heads=4).tokenize(
        torch.rand(2, 1, 60, 100)
    )
    assert tokens.shape == patch.shape == (2, 60, 64)
    # the stem's last conv is a 5 x 5 stride-5 conv: the same output grid as nn.Conv2d on 30 x 50 maps
    ref = nn.Conv2d(32, 64, 5, 5)(torch.rand(1, 32, 30, 50))
    assert ref.shape[-2:] == (6, 10)
    model = variants.ConvStemViT((60, 100), 1, num_classes=2, embed_dim=64, depth=1, num_heads=4)
    assert model(torch.rand(2, 1, 60, 100)).shape == (2, 2)
    assert model.num_patches == 60
    with pytest.raises(ValueError, match="multiple of 10"):
        variants.ConvStem((64, 100), 1, 64)


def test_small_cnn_parameter_count_and_shape() -> None:
    cnn = variants.SmallCNN(1, 2, 128)
    # conv 1->32 (288) + BN (64); conv 32->64 (18432) + BN (128); conv 64->128 (73728) + BN (256); head 258
    assert sum(p.numel() for p in cnn.parameters()) == 288 + 64 + 18_432 + 128 + 73_728 + 256 + 258 == 93_154
    assert cnn(torch.rand(3, 1, 60, 100)).shape == (3, 2)


def test_random_mask_hides_exactly_the_ratio() -> None:
    mask = masked.random_mask(50, 60, 0.4, torch.Generator().manual_seed(0))
    assert mask.dtype == torch.bool and mask.shape == (50, 60)
    assert (mask.sum(1) == 24).all()
    assert len({tuple(row.tolist()) for row in mask}) > 45  # the places differ from scene to scene


def test_masked_patch_model_replaces_hidden_tokens_only() -> None:
    torch.manual_seed(0)
    encoder = models.VisionTransformer((60, 100), 10, 1, num_classes=16, embed_dim=32, depth=1, num_heads=2)
    model = masked.MaskedPatchModel(encoder).eval()
    images = torch.rand(2, 1, 60, 100)
    none = torch.zeros(2, 60, dtype=torch.bool)
    out = model(images, none)
    assert out.shape == patchify(images, 10).shape == (2, 60, 100)
    # with nothing hidden it is the encoder's own tokens, decoded
    torch.testing.assert_close(out, model.decoder(encoder.forward_features(images)[:, 1:]))
    # hiding a patch makes its pixels unreachable: two images that differ only there give the same output
    hidden = none.clone()
    hidden[:, 7] = True
    other = images.clone()
    other[:, :, 0:10, 70:80] = torch.rand(2, 1, 10, 10)  # patch 7: row 0, column 7
    torch.testing.assert_close(model(images, hidden), model(other, hidden))


def test_pretrain_lowers_the_loss_on_a_short_run() -> None:
    from dataclasses import replace

    config = replace(datascale.PRETRAIN, steps=30, scenes=64, depth=1, device="cpu", warmup=5)
    result = masked.pretrain(config)
    assert len(result.losses) == 30
    assert sum(result.losses[-5:]) / 5 < sum(result.losses[:5]) / 5


def test_smoothness_of_known_patterns() -> None:
    y, x = torch.meshgrid(torch.arange(10.0), torch.arange(10.0), indexing="ij")
    ramp = (x + y)[None, None]
    checker = ((x + y) % 2 * 2 - 1)[None, None]
    noise = torch.randn(1, 1, 10, 10, generator=torch.Generator().manual_seed(0))
    s = masked.smoothness(torch.cat([ramp, checker, noise]))
    assert s[0] > 0.9 and s[1] < -0.99 and abs(s[2]) < 0.3


def test_attention_distance_of_an_untrained_vit_is_the_uniform_bound() -> None:
    config = datascale.PRETRAIN
    distances = masked.attention_distances(config.encoder(), size=8)
    uniform = probes.attention_distance_bounds(6, 10, 10)["uniform"]
    assert distances.shape == (4, 4)
    assert (distances - uniform).abs().max() < 1.0


def test_multiply_adds_of_a_linear_model() -> None:
    model = nn.Sequential(nn.Flatten(), nn.Linear(6000, 7))
    assert datascale.multiply_adds(model) == 6000 * 7


def test_rowcol_terms_of_a_one_hot_grid_code() -> None:
    rows, cols = torch.arange(60) // 10, torch.arange(60) % 10
    code = torch.cat([torch.eye(6)[rows], torch.eye(10)[cols]], 1)  # cosine 1/2 in a line, 0 off it
    vit = models.VisionTransformer((60, 100), 10, 1, embed_dim=16, depth=1, num_heads=1)
    with torch.no_grad():
        vit.pos_embed[0, 1:] = code
    terms = datascale.rowcol_terms(vit)
    assert abs(terms["same_row"] - 0.5) < 1e-6 and abs(terms["same_column"] - 0.5) < 1e-6
    assert terms["far_row"] == pytest.approx(0.5) and terms["diagonal"] == pytest.approx(0.0, abs=1e-9)


def test_roll_moves_the_label_with_the_scene() -> None:
    from vitcourse.scenes import make_batch

    batch = make_batch("within", 16, 3, 10)
    rolled, targets = datascale._roll(batch.images, batch.targets, 10, torch.Generator().manual_seed(0))
    shifts = []
    for image, original, (r, c), (r0, c0) in zip(rolled, batch.images, targets, batch.targets, strict=True):
        dr, dc = (int(r) - int(r0)) % 6, (int(c) - int(c0)) % 10
        torch.testing.assert_close(image, torch.roll(original, (10 * dr, 10 * dc), (1, 2)))
        shifts.append((dr, dc))
    assert len(set(shifts)) > 4


@pytest.mark.parametrize(
    ("call", "error", "names"),
    [
        (lambda: datascale.run("resnet", 64, 0), ValueError, "name"),
        (lambda: datascale.build("vit_mpp"), ValueError, "name"),
        (lambda: datascale.run("vit", 0, 0), ValueError, "train_size"),
        (lambda: masked.PretrainConfig(mask_ratio=1.0), ValueError, "mask_ratio"),
        (lambda: masked.PretrainConfig(steps=0), ValueError, "steps"),
        (lambda: masked.random_mask(4, 60, 0.0, torch.Generator()), ValueError, "ratio"),
        (lambda: masked.random_mask(4, 60, 0.5, 3), TypeError, "generator"),
        (lambda: masked.MaskedPatchModel(nn.Linear(2, 2)), TypeError, "encoder"),
        (lambda: masked.smoothness(torch.zeros(3, 3)), ValueError, "components"),
        (lambda: masked.attention_distances(variants.SmallCNN()), TypeError, "model"),
        (lambda: variants.SmallCNN(width=30), ValueError, "width"),
        (lambda: variants.ConvStem((60, 100), 1, 30), ValueError, "embed_dim"),
    ],
)
def test_bad_inputs_name_the_parameter(call, error: type[Exception], names: str) -> None:
    with pytest.raises(error, match=names):
        call()
