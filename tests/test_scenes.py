"""The scene-pool cache holds a bounded number of pools."""

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
