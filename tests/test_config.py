"""Settings from the environment (``service/config.py``): each variable read into its
field's type, and a value that cannot work refused at start with the variable named."""

from __future__ import annotations

import pytest

from service.config import Config


def test_each_variable_is_read_into_its_fields_type() -> None:
    config = Config.from_env({"SWEEP_METRICS_PORT": "9100", "SWEEP_INTERVAL_SECONDS": "0.5",
                              "RATE_LIMIT": "off", "PROXY_HOPS": "", "UNRELATED": "x"})
    assert (config.sweep_metrics_port, config.sweep_interval_seconds) == (9100, 0.5)
    assert config.rate_limit == "off" and config.proxy_hops == 0  # empty: the default


@pytest.mark.parametrize(("env", "named"), [
    ({"SWEEP_METRICS_PORT": "65536"}, "SWEEP_METRICS_PORT"),
    ({"SWEEP_METRICS_PORT": "-1"}, "SWEEP_METRICS_PORT"),
    ({"SWEEP_METRICS_PORT": "ninety"}, "SWEEP_METRICS_PORT"),
    ({"SWEEP_INTERVAL_SECONDS": "0"}, "SWEEP_INTERVAL_SECONDS"),
    ({"STREAM_HEARTBEAT_SECONDS": "0"}, "STREAM_HEARTBEAT_SECONDS"),
    ({"PROXY_HOPS": "-1"}, "PROXY_HOPS"),
])
def test_a_value_that_cannot_work_is_refused_naming_its_variable(
    env: dict[str, str], named: str,
) -> None:
    with pytest.raises(ValueError, match=named):
        Config.from_env(env)
