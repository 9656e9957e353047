"""Checkpoints with the reference implementations' exact key names and shapes (written out here, no downloads)."""

import pytest
import torch

from vitcourse import checkpoints
from vitcourse.models import create_model


def timm_vit_keys(depth: int, d: int, mlp: int, patch: int = 16, chans: int = 3, tokens: int = 197) -> dict:
    """timm VisionTransformer's state-dict layout (class token, learned positions, qkv bias, 1000 classes)."""
    keys = {
        "cls_token": (1, 1, d),
        "pos_embed": (1, tokens, d),
        "patch_embed.proj.weight": (d, chans, patch, patch),
        "patch_embed.proj.bias": (d,),
        "norm.weight": (d,),
        "norm.bias": (d,),
        "head.weight": (1000, d),
        "head.bias": (1000,),
    }
    for i in range(depth):
        p = f"blocks.{i}."
        keys |= {
            p + "norm1.weight": (d,), p + "norm1.bias": (d,),
            p + "attn.qkv.weight": (3 * d, d), p + "attn.qkv.bias": (3 * d,),
            p + "attn.proj.weight": (d, d), p + "attn.proj.bias": (d,),
            p + "norm2.weight": (d,), p + "norm2.bias": (d,),
            p + "mlp.fc1.weight": (mlp, d), p + "mlp.fc1.bias": (mlp,),
            p + "mlp.fc2.weight": (d, mlp), p + "mlp.fc2.bias": (d,),
        }  # fmt: skip
    return keys


def official_t2t_keys(depth: int, d: int, mlp: int, token_dim: int = 64, tokens: int = 197) -> dict:
    """The official T2T-ViT (transformer tokens) layout: no qkv bias, sinusoidal pos_embed stored as a tensor."""
    keys = {"cls_token": (1, 1, d), "pos_embed": (1, tokens, d)}
    for name, dim in (("attention1", 3 * 7 * 7), ("attention2", token_dim * 3 * 3)):
        p = f"tokens_to_token.{name}."
        keys |= {
            p + "norm1.weight": (dim,), p + "norm1.bias": (dim,),
            p + "attn.qkv.weight": (3 * token_dim, dim),
            p + "attn.proj.weight": (token_dim, token_dim), p + "attn.proj.bias": (token_dim,),
            p + "norm2.weight": (token_dim,), p + "norm2.bias": (token_dim,),
            p + "mlp.fc1.weight": (token_dim, token_dim), p + "mlp.fc1.bias": (token_dim,),
            p + "mlp.fc2.weight": (token_dim, token_dim), p + "mlp.fc2.bias": (token_dim,),
        }  # fmt: skip
    keys |= {"tokens_to_token.project.weight": (d, token_dim * 9), "tokens_to_token.project.bias": (d,)}
    for i in range(depth):
        p = f"blocks.{i}."
        keys |= {
            p + "norm1.weight": (d,), p + "norm1.bias": (d,),
            p + "attn.qkv.weight": (3 * d, d),
            p + "attn.proj.weight": (d, d), p + "attn.proj.bias": (d,),
            p + "norm2.weight": (d,), p + "norm2.bias": (d,),
            p + "mlp.fc1.weight": (mlp, d), p + "mlp.fc1.bias": (mlp,),
            p + "mlp.fc2.weight": (d, mlp), p + "mlp.fc2.bias": (d,),
        }  # fmt: skip
    keys |= {"norm.weight": (d,), "norm.bias": (d,), "head.weight": (1000, d), "head.bias": (1000,)}
    return keys


def official_performer_keys(depth: int, d: int, mlp: int, token_dim: int = 64) -> dict:
    """The official Performer T2T-ViT (t2t_vit_14, ...): token blocks with kqv, a 1 x MLP and random features w."""
    keys = {k: v for k, v in official_t2t_keys(depth, d, mlp, token_dim).items() if ".attention" not in k}
    for name, dim in (("attention1", 3 * 7 * 7), ("attention2", token_dim * 3 * 3)):
        p = f"tokens_to_token.{name}."
        keys |= {
            p + "kqv.weight": (3 * token_dim, dim), p + "kqv.bias": (3 * token_dim,),
            p + "proj.weight": (token_dim, token_dim), p + "proj.bias": (token_dim,),
            p + "norm1.weight": (dim,), p + "norm1.bias": (dim,),
            p + "norm2.weight": (token_dim,), p + "norm2.bias": (token_dim,),
            p + "mlp.0.weight": (token_dim, token_dim), p + "mlp.0.bias": (token_dim,),
            p + "mlp.2.weight": (token_dim, token_dim), p + "mlp.2.bias": (token_dim,),
            p + "w": (token_dim // 2, token_dim),
        }  # fmt: skip
    return keys


def _random(layout: dict) -> dict:
    gen = torch.Generator().manual_seed(0)
    return {k: torch.randn(shape, generator=gen) for k, shape in layout.items()}


# (depth, D, MLP). ViT-Base at full depth; the others with 2 blocks (the key pattern repeats per block) to keep
# the tests fast.
VIT = {"vit_base_patch16_224": (12, 768, 3072), "vit_large_patch16_224": (2, 1024, 4096)}
T2T = {"t2t_vit_t_14": (2, 384, 1152), "t2t_vit_t_19": (2, 448, 1344), "t2t_vit_t_24": (2, 512, 1536)}


@pytest.mark.parametrize("name", sorted(VIT))
def test_timm_vit_loads_fills_every_parameter_and_round_trips(name: str) -> None:
    sd = _random(timm_vit_keys(*VIT[name]))
    model = create_model(name, depth=VIT[name][0])
    checkpoints.load_pretrained(model, sd, "timm")
    ours = model.state_dict()
    for key, value in sd.items():  # every parameter filled with the checkpoint's numbers
        assert torch.equal(ours[key].reshape(value.shape), value), key
    back = checkpoints.to_timm_vit(ours, in_chans=3, patch_size=16)
    assert back.keys() == sd.keys() and all(torch.equal(back[k], sd[k]) for k in sd)


def test_timm_patch_embedding_is_the_same_convolution() -> None:
    sd = _random(timm_vit_keys(1, 768, 3072))
    model = checkpoints.load_pretrained(create_model("vit_base_patch16_224", depth=1), sd, "timm")
    conv = torch.nn.Conv2d(3, 768, 16, stride=16)
    conv.load_state_dict({"weight": sd["patch_embed.proj.weight"], "bias": sd["patch_embed.proj.bias"]})
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        torch.testing.assert_close(
            model.tokenize(x), conv(x).flatten(2).transpose(1, 2), rtol=1e-4, atol=1e-4
        )


@pytest.mark.parametrize("name", sorted(T2T))
@pytest.mark.parametrize("wrapper", ["plain", "state_dict", "state_dict_ema", "module"])
def test_official_t2t_loads_with_wrappers(name: str, wrapper: str) -> None:
    sd = _random(official_t2t_keys(*T2T[name]))
    wrapped = {
        "plain": sd,
        "state_dict": {"state_dict": sd, "epoch": torch.tensor(300)},
        "state_dict_ema": {"state_dict_ema": sd},
        "module": {f"module.{k}": v for k, v in sd.items()},
    }[wrapper]
    model = checkpoints.load_pretrained(create_model(name, depth=2), wrapped, "t2t")
    ours = model.state_dict()
    assert ours.keys() == sd.keys()
    assert all(torch.equal(ours[k], sd[k]) for k in sd)


@pytest.mark.parametrize("wrapper", ["plain", "module"])
def test_official_performer_checkpoint_is_refused_naming_the_transformer_token_one(wrapper: str) -> None:
    sd = _random(official_performer_keys(*T2T["t2t_vit_t_14"]))
    if wrapper == "module":
        sd = {f"module.{k}": v for k, v in sd.items()}
    with pytest.raises(
        ValueError,
        match=r"Performer token blocks \(tokens_to_token\.attention1\.kqv\.bias.*does not build.*t2t_vit_t_14/19/24",
    ):
        checkpoints.load_pretrained(create_model("t2t_vit_t_14", depth=2), sd, "t2t")


def test_mismatches_are_named() -> None:
    sd = _random(official_t2t_keys(*T2T["t2t_vit_t_14"]))
    extra = dict(sd, **{"tokens_to_token.attention1.attn.qkv.bias": torch.zeros(192)})
    with pytest.raises(
        ValueError, match=r"keys the model does not have: \['tokens_to_token.attention1.attn.qkv.bias'\]"
    ):
        checkpoints.load_pretrained(create_model("t2t_vit_t_14", depth=2), extra, "t2t")
    missing = {k: v for k, v in sd.items() if k != "head.bias"}
    with pytest.raises(ValueError, match=r"keys the checkpoint lacks: \['head.bias'\]"):
        checkpoints.load_pretrained(create_model("t2t_vit_t_14", depth=2), missing, "t2t")
    with pytest.raises(
        ValueError, match=r"head.weight: checkpoint shape \(1000, 384\), model shape \(10, 384\)"
    ):
        checkpoints.load_pretrained(create_model("t2t_vit_t_14", depth=2, num_classes=10), sd, "t2t")
    with pytest.raises(ValueError, match="source must be one of"):
        checkpoints.load_pretrained(create_model("t2t_vit_t_14", depth=2), sd, "hub")
    with pytest.raises(TypeError, match="not a tensor"):
        checkpoints.unwrap({"head.bias": [0.0]})


def test_a_patch_weight_of_the_wrong_layout_is_refused() -> None:
    from vitcourse.models import VisionTransformer

    model = VisionTransformer((8, 8), 4, 1, embed_dim=8, depth=1, num_heads=2)
    timm_like = checkpoints.to_timm_vit(model.state_dict(), 1, 4)
    for shape in [(8, 1, 2, 8), (8, 4, 2, 2), (8, 16, 1, 1)]:  # each flattens to (8, 16), the right size
        bad = {**timm_like, "patch_embed.proj.weight": torch.zeros(shape)}
        with pytest.raises(ValueError, match="patch_embed.proj.weight"):
            checkpoints.load_pretrained(model, bad, "timm")
    complex_ = {k: v.to(torch.complex64) for k, v in timm_like.items()}
    with pytest.raises(ValueError, match="dtype torch.complex64"):
        checkpoints.load_pretrained(model, complex_, "timm")
    meta = {k: torch.empty_like(v, device="meta") for k, v in timm_like.items()}
    with pytest.raises(ValueError, match="a meta tensor, which holds a shape but no numbers"):
        checkpoints.load_pretrained(model, meta, "timm")
    with pytest.raises(TypeError, match="checkpoint keys must be strings"):
        checkpoints.unwrap({0: torch.zeros(1)})
    with pytest.raises(ValueError, match="in_chans must be an int >= 1, got 0"):
        checkpoints.to_timm_vit(model.state_dict(), 0, 4)
    assert checkpoints.load_pretrained(model, timm_like, "timm") is model
