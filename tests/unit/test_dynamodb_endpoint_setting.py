"""WFX_DYNAMODB_ENDPOINT: an http:// or https:// URL with a host, or unset for AWS."""

from __future__ import annotations

import pytest

from entrypoints.settings import Settings, UnusableSettingError


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://127.0.0.1:5000",
        "http://localhost:8000/",
        "https://dynamodb.eu-west-1.amazonaws.com",
        "http://[::1]:5000",
    ],
)
def test_an_http_url_with_a_host_is_taken_as_it_is(endpoint: str) -> None:
    settings = Settings.from_environment({"WFX_DYNAMODB_ENDPOINT": endpoint})

    assert settings.dynamodb_endpoint == endpoint


def test_an_empty_endpoint_means_aws() -> None:
    assert Settings.from_environment({"WFX_DYNAMODB_ENDPOINT": ""}).dynamodb_endpoint is None


@pytest.mark.parametrize(
    "endpoint",
    [
        "not-a-url",
        "127.0.0.1:5000",
        "ftp://127.0.0.1:5000",
        "http://",
        "http://:5000",
        "http://host:port",
        "http://host:0",
        "http://host:70000",
        "http://local host:5000",
        "http://[::1:5000",
    ],
)
def test_anything_else_is_refused_naming_the_variable_and_the_rule(endpoint: str) -> None:
    with pytest.raises(UnusableSettingError, match=r"^WFX_DYNAMODB_ENDPOINT: must be an http://"):
        Settings.from_environment({"WFX_DYNAMODB_ENDPOINT": endpoint})
