"""Settings from the environment (``service/config.py``): each variable read into its
field's type, and a value that cannot work refused at start with the variable named."""

from __future__ import annotations

import pytest

from service.config import Config


def test_each_variable_is_read_into_its_fields_type() -> None:
    config = Config.from_env({"WORKER_METRICS_PORT": "9100", "WORKER_NICE": "5",
                              "STREAM_MAX_SECONDS": "0.5", "RATE_LIMIT": "off",
                              "PROXY_HOPS": "", "UNRELATED": "x"})
    assert (config.worker_metrics_port, config.worker_nice) == (9100, 5)
    assert config.stream_max_seconds == 0.5
    assert config.rate_limit == "off" and config.proxy_hops == 0  # empty: the default


@pytest.mark.parametrize(("env", "named"), [
    ({"WORKER_METRICS_PORT": "65536"}, "WORKER_METRICS_PORT"),
    ({"WORKER_METRICS_PORT": "-1"}, "WORKER_METRICS_PORT"),
    ({"WORKER_METRICS_PORT": "ninety"}, "WORKER_METRICS_PORT"),
    ({"WORKER_NICE": "20"}, "WORKER_NICE"),
    ({"STREAM_HEARTBEAT_SECONDS": "0"}, "STREAM_HEARTBEAT_SECONDS"),
    ({"PROXY_HOPS": "-1"}, "PROXY_HOPS"),
])
def test_a_value_that_cannot_work_is_refused_naming_its_variable(
    env: dict[str, str], named: str,
) -> None:
    with pytest.raises(ValueError, match=named):
        Config.from_env(env)
