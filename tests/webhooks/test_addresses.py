"""Where a webhook may go (``service/webhooks/addresses.py``): http(s) URLs without a user
name or password, whose host resolves only to public addresses, IPv4 and IPv6 alike
(an IPv6 address carrying an IPv4 one judged by the IPv4 inside), unless the operator
allows non-public ones. The resolver is the test's: no name is looked up."""

from __future__ import annotations

import socket

import pytest

from service.webhooks import UnsafeUrlError, refusal, target


def resolving(*addresses: str):  # type: ignore[no-untyped-def]
    def resolver(host: str, port: int) -> list[str]:
        return list(addresses)
    return resolver


NOT_PUBLIC = [
    "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
    "100.64.0.1", "0.0.0.0", "224.0.0.1", "239.255.255.250", "240.0.0.1",
    "255.255.255.255", "192.0.2.1",
    "::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1", "fec0::1", "ff02::1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
    "2002:7f00:1::1", "64:ff9b::a9fe:a9fe", "2001:db8::1",
]


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_loopback_private_link_local_multicast_reserved_and_unspecified_addresses_are_refused(
        address: str) -> None:
    assert refusal(address) is not None
    with pytest.raises(UnsafeUrlError, match="public addresses only"):
        target("https://hooks.example.net/x", False, resolving(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111",
                                     "::ffff:8.8.8.8", "2a00:1450:4001:82a::200e"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert refusal(address) is None
    assert target("https://hooks.example.net/x", False, resolving(address)).address == address


def test_a_name_is_refused_when_any_of_its_addresses_is_not_public() -> None:
    with pytest.raises(UnsafeUrlError, match=r"10\.0\.0\.7, a private address"):
        target("http://hooks.example.net/", False, resolving("8.8.8.8", "10.0.0.7"))


@pytest.mark.parametrize("url", [
    "ftp://hooks.example.net/x", "file:///etc/passwd", "javascript:alert(1)", "hooks.example.net",
    "//hooks.example.net/x", "http://user:pw@hooks.example.net/", "http://user@hooks.example.net/",
    "https://hooks.example.net@127.0.0.1/", "http:///x", "http://hooks.example.net:99999/",
    "http://hooks.example.net:port/", "http://hooks.example.net/a b", "http://hooks.exämple.net/",
    "http://hooks.example.net/\r\nX-Evil: 1",
])
def test_a_url_that_is_not_http_or_https_or_carries_a_user_is_refused(url: str) -> None:
    with pytest.raises(UnsafeUrlError):
        target(url, True, resolving("8.8.8.8"))


def test_a_name_that_does_not_resolve_is_refused() -> None:
    def nowhere(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(UnsafeUrlError, match="does not resolve"):
        target("https://nowhere.invalid/", True, nowhere)


def test_the_setting_allows_non_public_addresses() -> None:
    found = target("http://127.0.0.1:8080/hook", True, resolving("127.0.0.1"))
    assert (found.address, found.port) == ("127.0.0.1", 8080)
    with pytest.raises(UnsafeUrlError):
        target("http://127.0.0.1:8080/hook", False, resolving("127.0.0.1"))


def test_a_target_is_the_first_address_checked_with_the_host_and_path_named() -> None:
    found = target("https://Hooks.Example.net:8443/a/b?c=1&d=2#frag", False,
                   resolving("2606:4700:4700::1111", "1.1.1.1"))
    assert found.address == "2606:4700:4700::1111"
    assert (found.scheme, found.host, found.port) == ("https", "hooks.example.net", 8443)
    assert (found.netloc, found.path) == ("Hooks.Example.net:8443", "/a/b?c=1&d=2")
    assert target("http://hooks.example.net", False, resolving("1.1.1.1")).path == "/"
    assert target("http://hooks.example.net", False, resolving("1.1.1.1")).port == 80
