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
    ({"WEBHOOK_ALLOW_PRIVATE": "maybe"}, "WEBHOOK_ALLOW_PRIVATE"),
    ({"WEBHOOK_RETRY_SECONDS": "5,soon"}, "WEBHOOK_RETRY_SECONDS"),
    ({"WEBHOOK_RETRY_SECONDS": "5,-1"}, "WEBHOOK_RETRY_SECONDS"),
    ({"WEBHOOK_TIMEOUT_SECONDS": "0"}, "WEBHOOK_TIMEOUT_SECONDS"),
    ({"WEBHOOK_QUEUE_MAX": "0"}, "WEBHOOK_QUEUE_MAX"),
    ({"WEBHOOK_CONCURRENCY": "-1"}, "WEBHOOK_CONCURRENCY"),
    ({"ANALYSIS_SETTING": "fast"}, "ANALYSIS_SETTING"),
])
def test_a_value_that_cannot_work_is_refused_naming_its_variable(
    env: dict[str, str], named: str,
) -> None:
    with pytest.raises(ValueError, match=named):
        Config.from_env(env)


@pytest.mark.parametrize(("raw", "allowed"), [("1", True), ("true", True), ("On", True),
                                              ("0", False), ("false", False), ("no", False)])
def test_a_switch_is_read_as_a_word_not_as_any_non_empty_string(raw: str, allowed: bool) -> None:
    assert Config.from_env({"WEBHOOK_ALLOW_PRIVATE": raw}).webhook_allow_private is allowed


def test_the_default_webhook_retries_end_within_a_day_and_a_test_may_make_them_short() -> None:
    waits = Config().webhook_retries
    assert len(waits) == 7 and list(waits) == sorted(waits) and 23 * 3600 < sum(waits) < 24 * 3600
    assert Config.from_env({"WEBHOOK_RETRY_SECONDS": "0.2,0.4"}).webhook_retries == (0.2, 0.4)
    assert Config().webhook_allow_private is False
