import dataclasses
from pathlib import Path

import pytest
import torch

from vitcourse import scenes, train
from vitcourse.models import VisionTransformer


def test_scenes_are_deterministic_and_balanced() -> None:
    a = scenes.make_batch("scramble", 8, seed=3)
    b = scenes.make_batch("scramble", 8, seed=3)
    assert torch.equal(a.images, b.images) and torch.equal(a.targets, b.targets)
    assert a.images.shape == (8, 1, 60, 100) and a.targets.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert not torch.equal(a.images, scenes.make_batch("scramble", 8, seed=4).images)
    # a scrambled scene holds the same patches as its intact twin, in another order
    intact, scrambled = a.images[0], a.images[4]
    assert not torch.equal(intact, scrambled)
    assert torch.equal(intact.flatten().sort().values, scrambled.flatten().sort().values)


def test_moon_targets() -> None:
    batch = scenes.make_batch("moon", 4, seed=0)
    assert batch.targets.shape == (4, 1)
    assert ((batch.targets > 0) & (batch.targets < 1)).all()
    for img, target in zip(
        batch.images, batch.targets, strict=True
    ):  # the moon (1.0) is in view near its column
        cols = torch.nonzero(img[0] == 1.0)[:, 1].float()
        assert cols.numel() > 0 and abs(cols.mean().item() - target.item() * 100) < 3


def test_bad_task_and_size() -> None:
    with pytest.raises(ValueError, match="task must be one of"):
        scenes.make_batch("sunset", 4, 0)
    with pytest.raises(ValueError, match="even"):
        scenes.make_batch("scramble", 3, 0)
    with pytest.raises(ValueError, match="pos_embed must be one of"):
        train.TrainConfig(pos_embed="rope")
    with pytest.raises(ValueError, match="model must be one of"):
        train.TrainConfig(model="cnn")


# The ViT needs a few hundred steps to leave the scramble task's starting plateau (notebook 10 shows it), so
# the tiny-budget check uses the tasks where every model's loss falls at once.
@pytest.mark.parametrize(("model", "task"), [("vit", "moon"), ("t2t", "moon"), ("t2t", "scramble")])
def test_training_reduces_the_loss(model: str, task: str) -> None:
    config = train.TrainConfig(
        model=model, task=task, steps=40, batch_size=16, embed_dim=16, num_heads=2, device="cpu",
        pos_embed="sinusoidal", train_scenes=16, lr=3e-3, warmup=3,
    )  # fmt: skip
    result = train.train(config, progress=False, eval_size=16)
    first, last = sum(result.losses[:5]) / 5, sum(result.losses[-5:]) / 5
    assert last < first
    assert set(result.metrics) == ({"loss", "accuracy"} if task == "scramble" else {"loss", "mae_pixels"})


def test_position_blind_model_is_exactly_at_chance() -> None:
    config = train.TrainConfig(
        pos_embed="none", steps=5, batch_size=16, embed_dim=16, train_scenes=32, device="cpu"
    )
    result = train.train(config, progress=False, eval_size=32)
    assert result.metrics["accuracy"] == 0.5
    batch = scenes.make_batch("scramble", 32, seed=10_000)
    with torch.no_grad():
        out = result.model(batch.images)
    torch.testing.assert_close(out[:16], out[16:], rtol=0, atol=1e-6)


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    config = train.TrainConfig(steps=2, batch_size=4, embed_dim=16, train_scenes=8, device="cpu")
    result = train.train(config, progress=False, eval_size=4)
    path = tmp_path / "run.pt"
    train.save_checkpoint(result, path)
    model, loaded_config = train.load_checkpoint(path)
    assert loaded_config == config
    for (name, a), b in zip(result.model.state_dict().items(), model.state_dict().values(), strict=True):
        assert torch.equal(a, b), name


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        train.main(["--help"])
    assert "--pos-embed" in capsys.readouterr().out
    path = tmp_path / "cli.pt"
    args = ["--steps", "3", "--batch-size", "4", "--embed-dim", "8", "--seeds", "0", "1", "--device", "cpu"]
    assert train.main([*args, "--no-progress", "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "mean" in out and "accuracy" in out and path.exists()


def test_command_line_scramble_block(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--steps", "2", "--batch-size", "4", "--embed-dim", "8", "--device", "cpu", "--no-progress"]
    assert train.main([*args, "--scramble-block", "10"]) == 0
    assert "scramble_block=10" in capsys.readouterr().out
    assert train.main(args) == 0
    assert "scramble_block=20" in capsys.readouterr().out  # the default follows the patch size
    with pytest.raises(SystemExit) as stop:
        train.main([*args, "--scramble-block", "7"])
    assert stop.value.code == 2 and "scramble_block=7 must divide" in capsys.readouterr().err


def test_scramble_block_is_checked() -> None:
    assert train.TrainConfig(scramble_block=10).block == 10 and train.TrainConfig(patch_size=10).block == 10
    for bad in (7, 0, 30):
        with pytest.raises(ValueError, match="scramble_block"):
            train.TrainConfig(scramble_block=bad)
    with pytest.raises(ValueError, match=r"block=7 does not divide the 60 x 100 images"):
        scenes.make_batch("scramble", 4, 0, block=7)
    with pytest.raises(TypeError, match="block"):
        scenes.make_batch("scramble", 4, 0, block=10.0)


def test_seams_inside_the_patches_break_the_blind_models_symmetry() -> None:
    # 10 x 10 blocks put seams inside a 20 x 20 patch: the patch tokens are no longer a reordering
    blind = VisionTransformer(num_classes=2, embed_dim=16, depth=1, num_heads=2, pos_embed="none").eval()
    with torch.no_grad():
        for block, same in ((20, True), (10, False)):
            out = blind(scenes.make_batch("scramble", 8, seed=0, block=block).images)
            assert torch.allclose(out[:4], out[4:], rtol=0, atol=1e-6) is same
    held_out = train.evaluate(blind, "scramble", size=8, block=10)
    assert set(held_out) == {"loss", "accuracy"}


def test_attention_weights() -> None:
    model = VisionTransformer(embed_dim=16, depth=2, num_heads=2).eval()
    w = model.attention_weights(torch.rand(3, 1, 60, 100))
    assert w.shape == (3, 2, 16, 16)
    torch.testing.assert_close(w.sum(-1), torch.ones(3, 2, 16))
    with pytest.raises(ValueError, match="block must be in"):
        model.attention_weights(torch.rand(1, 1, 60, 100), block=5)


@pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device: the CPU/GPU consistency test needs one"
)
def test_cpu_and_gpu_forward_agree() -> None:
    torch.manual_seed(0)
    model = VisionTransformer(embed_dim=64, depth=2, num_heads=4).eval()
    images = scenes.make_batch("scramble", 8, seed=0).images
    with torch.no_grad():
        cpu = model(images)
        gpu = model.cuda()(images.cuda()).cpu()
    torch.testing.assert_close(gpu, cpu, rtol=1e-3, atol=1e-4)


def test_build_model_leaves_the_callers_random_state_alone() -> None:
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    a = train.build_model(train.TrainConfig(embed_dim=16, seed=5))
    assert torch.equal(torch.rand(3), expected)
    b = train.build_model(train.TrainConfig(embed_dim=16, seed=5))  # the same seed gives the same weights
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.equal(x, y), name


def test_param_groups_exclude_biases_norms_and_tokens() -> None:
    model = train.build_model(train.TrainConfig(embed_dim=16, depth=1, pos_embed="learned"))
    decay, no_decay = train.param_groups(model, 0.05)
    assert decay["weight_decay"] == 0.05 and no_decay["weight_decay"] == 0.0
    names = {id(p): n for n, p in model.named_parameters()}
    no_decay_names = {names[id(p)] for p in no_decay["params"]}
    assert {"cls_token", "pos_embed", "norm.weight", "norm.bias", "head.bias"} <= no_decay_names
    assert all(names[id(p)].endswith("weight") and p.ndim == 2 for p in decay["params"])
    n_all = sum(1 for p in model.parameters() if p.requires_grad)
    assert len(decay["params"]) + len(no_decay["params"]) == n_all
    # a fixed sinusoidal table does not train, so it is in neither group
    fixed = train.build_model(train.TrainConfig(embed_dim=16, depth=1, pos_embed="sinusoidal"))
    grouped = {id(p) for g in train.param_groups(fixed, 0.05) for p in g["params"]}
    assert id(fixed.pos_embed) not in grouped


def test_param_groups_use_the_models_own_list() -> None:
    class Tiny(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.table = torch.nn.Parameter(torch.zeros(4, 4))
            self.weight = torch.nn.Parameter(torch.zeros(4, 4))

        def no_weight_decay(self) -> set[str]:
            return {"table"}

    tiny = Tiny()
    decay, no_decay = train.param_groups(tiny, 0.1)
    assert decay["params"] == [tiny.weight] and no_decay["params"] == [tiny.table]


def test_learning_rate_schedule() -> None:
    config = train.TrainConfig(steps=30, warmup=5, batch_size=4, embed_dim=16, train_scenes=8, device="cpu")
    result = train.train(config, progress=False, eval_size=4)
    expected = [config.lr * train.lr_factor(k, config.warmup, config.steps) for k in range(config.steps)]
    assert result.lrs == pytest.approx(expected)
    assert result.lrs[config.warmup - 1] == pytest.approx(config.lr)  # the peak ends the warm-up
    assert result.lrs[0] == pytest.approx(config.lr / config.warmup)
    assert max(result.lrs) == pytest.approx(config.lr) and result.lrs[-1] < 0.01 * config.lr


def test_scramble_block_sets_the_shuffled_blocks() -> None:
    config = train.TrainConfig(scramble_block=10, steps=1, batch_size=4, embed_dim=16, train_scenes=8)
    assert config.block == 10 and train.TrainConfig().block == 20
    result = train.train(config, progress=False, eval_size=4)
    assert 0.0 <= result.metrics["accuracy"] <= 1.0


def test_load_checkpoint_refuses_what_is_not_a_checkpoint(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ValueError, match="is not a checkpoint written by vitcourse"):
        train.load_checkpoint(text)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(
        ValueError, match=r"should hold a dict with .config. \(or .settings.\) and .state_dict."
    ):
        train.load_checkpoint(other)
    wrong = tmp_path / "wrong.pt"
    torch.save(
        {"config": {"embed_dim": 8, "num_heads": 2}, "state_dict": {"cls_token": torch.zeros(1)}}, wrong
    )
    with pytest.raises(ValueError, match="its settings and weights do not fit"):
        train.load_checkpoint(wrong)
    with pytest.raises(FileNotFoundError, match="is not a file"):
        train.load_checkpoint(tmp_path / "missing.pt")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device='cuda' was asked for"):
            train.load_checkpoint(wrong, device="cuda")


def test_evaluate_names_a_head_of_the_wrong_size() -> None:
    model = VisionTransformer(num_classes=3, embed_dim=8, depth=1, num_heads=2)
    with pytest.raises(ValueError, match=r"task 'scramble' needs \(B, 2\): build it with num_classes=2"):
        train.evaluate(model, "scramble", size=2)


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [("lr", float("inf"), ValueError), ("weight_decay", -1, ValueError), ("warmup", 1.5, TypeError),
     ("train_scenes", 8.0, TypeError), ("seed", 1.5, TypeError), ("mlp_ratio", "2", TypeError),
     ("patch_size", 7, ValueError), ("num_heads", 5, ValueError)],
)  # fmt: skip
def test_train_config_names_a_bad_field(field: str, value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match=field):
        train.TrainConfig(**{field: value})


def test_the_command_line_reports_a_bad_setting_as_a_usage_error(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as stop:
        train.main(["--steps", "0", "--no-progress"])
    assert stop.value.code == 2
    assert "steps must be an int >= 1, got 0" in capsys.readouterr().err


# The shipped models: each file is small, loads with weights_only=True, and re-evaluating it on the CPU gives the
# held-out metrics stored in it (measured on the CPU right after training by `make models`).
@pytest.mark.parametrize("name", train.SHIPPED)
def test_shipped_model_reproduces_its_stored_metrics(name: str) -> None:
    path = train.shipped_path(name)
    assert path.is_file() and len(path.read_bytes()) <= 2 * 2**20
    shipped = train.load_shipped(name)
    assert shipped.config == dataclasses.replace(train.SHIPPED_CONFIGS[name], device="auto")
    assert not shipped.model.training and next(shipped.model.parameters()).device.type == "cpu"
    patch = shipped.config.patch_size if shipped.config.task in scenes.WHERE_TASKS else shipped.config.block
    again = train.evaluate(shipped.model, shipped.config.task, block=patch, **train.SHIPPED_EVAL)
    assert set(again) == set(shipped.metrics)
    size = train.SHIPPED_EVAL["size"]
    for key, stored in shipped.metrics.items():
        if "accuracy" in key:  # a count of right answers out of SHIPPED_EVAL["size"]
            # the same count up to one scene: another CPU moves the outputs by rounding (about 1e-6), which can
            # flip only a scene whose two best outputs are that close
            assert abs(round(again[key] * size) - round(stored * size)) <= 1, key
        else:
            assert again[key] == pytest.approx(stored, rel=1e-4, abs=1e-6), key
    assert {"device", "seconds", "torch"} <= set(shipped.info)


def test_shipped_names_are_checked() -> None:
    with pytest.raises(ValueError, match="name must be one of"):
        train.load_shipped("vit_nowhere")
    with pytest.raises(TypeError, match="name must be one of"):
        train.shipped_path(3)  # type: ignore[arg-type]


def test_make_shipped_writes_what_load_shipped_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same code path as `make models`, on a tiny run written into a temporary folder
    tiny = train.TrainConfig(task="where", steps=3, batch_size=8, embed_dim=16, num_heads=2, train_scenes=8)
    monkeypatch.setitem(train.SHIPPED_CONFIGS, "tiny", tiny)
    monkeypatch.setitem(train.SHIPPED_EVAL, "size", 16)
    written = train.make_shipped(("tiny",), out_dir=tmp_path, device="cpu")
    saved = torch.load(written["tiny"], weights_only=True)
    assert saved["config"]["device"] == "auto" and saved["config"]["steps"] == 3
    model = train.build_model(train.TrainConfig(**saved["config"]))
    model.load_state_dict(saved["state_dict"])
    again = train.evaluate(model, "where", size=16, seed=train.SHIPPED_EVAL["seed"])
    assert again == pytest.approx(saved["metrics"], rel=1e-5)


def test_shipped_option_names_unknown_models(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        train.main(["--shipped", "vit_nowhere"])
    assert stop.value.code == 2
    assert "'vit_nowhere' is not a shipped model; choose from vit_where" in capsys.readouterr().err


def test_eval_every_records_held_out_metrics_and_leaves_the_run_alone() -> None:
    config = train.TrainConfig(steps=6, warmup=2, batch_size=8, train_scenes=64, device="cpu")
    plain = train.train(config, progress=False, eval_size=16)
    traced = train.train(config, progress=False, eval_size=16, eval_every=3)
    assert traced.losses == plain.losses and plain.held_out == []
    assert [step for step, _ in traced.held_out] == [2, 5]
    assert traced.held_out[-1][1] == pytest.approx(traced.metrics)
    with pytest.raises(ValueError, match="eval_every"):
        train.train(config, progress=False, eval_every=-1)
