"""Every feature works on every shard of a local 3-primary Redis Cluster, through a 2-worker
gunicorn: the checks of ``make bench-cluster`` (tests/cluster/features.py) on fewer games.
Games spread over the primaries as their slot shares predict, each is played to its end,
waiters on a game on each shard are woken by its move, and seeks and records (where the
service offers them) work on every shard."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from service.match.local import local_service
from tests.cluster.features import FEATURES, Played, Row, chi_square_sf, play_games
from tests.cluster.local import cluster_client, local_cluster

GAMES = 45


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    with local_cluster(tmp_path_factory.mktemp("features")) as cluster, \
            local_service(2, redis_url=cluster.url) as service:
        yield play_games(service.url, cluster_client(cluster.url), GAMES,
                         {"preset": "classic", "hand_sizes": [3]})


@pytest.mark.slow
@pytest.mark.parametrize("feature", FEATURES, ids=lambda f: f.__name__)
def test_the_feature_works_on_every_shard(played: Played,
                                          feature: Callable[[Played], Row]) -> None:
    row = feature(played)
    if row.ok is None:
        pytest.skip(row.detail)
    assert row.ok, row
    assert set(row.per_shard) == set(played.primaries()), row


def test_the_chi_square_tail_matches_known_values() -> None:
    """The spread's p-value: the chi-square survival function at tabulated points."""
    assert chi_square_sf(5.991, 2) == pytest.approx(0.05, abs=1e-4)
    assert chi_square_sf(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert chi_square_sf(11.345, 3) == pytest.approx(0.01, abs=1e-4)
    assert chi_square_sf(0.0, 4) == pytest.approx(1.0)
