"""The scene-pool cache holds a bounded number of pools; the "where" task's targets name the moon's patch."""

import pytest
import torch

from vitcourse import scenes


def test_scene_pool_cache_is_bounded() -> None:
    scenes.clear_scene_pools()
    first = scenes.scene_pool("moon", 2, seed=0)
    assert scenes.scene_pool("moon", 2, 0, 20) is first  # one key, however the arguments are spelled
    pools = [scenes.scene_pool("moon", 2, seed) for seed in range(1, scenes.POOL_CACHE_SIZE + 3)]
    info = scenes._pool.cache_info()
    assert info.maxsize == scenes.POOL_CACHE_SIZE and info.currsize == scenes.POOL_CACHE_SIZE
    assert scenes.scene_pool("moon", 2, seed=0) is not first  # the oldest pool was let go
    assert scenes.scene_pool("moon", 2, len(pools)) is pools[-1]  # the newest is still shared
    torch.testing.assert_close(scenes.scene_pool("moon", 2, 0).images, scenes.make_batch("moon", 2, 0).images)
    scenes.clear_scene_pools()
    assert scenes._pool.cache_info().currsize == 0


def test_default_pool_size_stays_small() -> None:
    # a pool of the training default (2048 scenes of 60 x 100 float32) is about 49 MB; the cache keeps at most
    # POOL_CACHE_SIZE of them, not the ~400 MB that eight would take
    per_pool = 2048 * 60 * 100 * 4
    assert scenes.POOL_CACHE_SIZE * per_pool < 100 * 2**20


def test_where_targets_name_the_moons_patch() -> None:
    batch = scenes.make_batch("where", 24, seed=5)
    assert batch.images.shape == (24, 1, 60, 100) and batch.targets.shape == (24, 2)
    assert batch.targets.dtype == torch.long
    assert scenes.where_classes(20) == (3, 5) and scenes.where_classes(10) == (6, 10)
    for img, (row, col) in zip(batch.images, batch.targets.tolist(), strict=True):
        # only the moon is drawn at full brightness (1.0), and only one moon is drawn
        moon = torch.nonzero(img[0] == 1.0).float()  # (pixels, 2)
        centre = moon.mean(0) + 0.5
        assert int(centre[0] // 20) == row and int(centre[1] // 20) == col
        assert (moon + 0.5 - centre).norm(dim=1).max() <= 8.5  # one disc of radius <= 8, no second moon
    # the patch is drawn uniformly: every row and column turns up in a larger set
    many = scenes.make_batch("where", 200, seed=6).targets
    assert set(many[:, 0].tolist()) == {0, 1, 2} and set(many[:, 1].tolist()) == {0, 1, 2, 3, 4}


def test_where_needs_a_grid_that_divides_the_picture() -> None:
    with pytest.raises(ValueError, match="block=7 does not divide the 60 x 100 images"):
        scenes.make_batch("where", 4, seed=0, block=7)
    with pytest.raises(ValueError, match="patch must be"):
        scenes.where_classes(0)
    with pytest.raises(ValueError, match="patch=7 does not divide the 60 x 100 images"):
        scenes.where_classes(7)


@pytest.mark.parametrize("patch", [10, 20])
def test_within_draws_the_moon_wholly_inside_its_patch(patch: int) -> None:
    batch = scenes.make_batch("within", 40, seed=3, block=patch)
    rows, cols = scenes.where_classes(patch)
    assert (
        batch.targets.shape == (40, 2)
        and batch.targets[:, 0].max() < rows
        and batch.targets[:, 1].max() < cols
    )
    for img, (row, col) in zip(batch.images, batch.targets.tolist(), strict=True):
        moon = torch.nonzero(img[0] == 1.0)  # only the moon is drawn at full brightness
        assert len(moon) > 0
        assert (moon[:, 0] // patch == row).all() and (moon[:, 1] // patch == col).all()  # inside its patch
        radius = (moon.float() + 0.5 - (moon.float() + 0.5).mean(0)).norm(dim=1).max()
        assert radius <= 0.4 * patch + 0.5  # radius 0.25 to 0.4 of the patch side
    # the same draws as "where" up to the moon: the landscape of each scene is the same
    where = scenes.make_batch("where", 40, seed=3, block=patch)
    same = (batch.images == where.images).float().mean().item()
    assert same > 0.9 and torch.equal(batch.targets, where.targets)
