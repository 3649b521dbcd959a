"""Where a webhook may go: an ``http`` or ``https`` URL as RFC 3986 writes it, without a
user name or password (a fragment is never sent), on a web port (:data:`WEBHOOK_PORTS`), whose host
resolves only to public addresses.

Why a check at all: a webhook is a request the service makes, from inside its network,
to wherever an account says. Without one, any account could make the service POST to
its own Redis, a cloud's metadata endpoint or a router's admin page (server-side request
forgery). So every address the host resolves to must be a global unicast one: loopback,
private, shared (CGNAT), link-local, site-local, multicast, reserved, unspecified and
documentation addresses are refused, for IPv4 and IPv6 alike, and an IPv6 address that
carries an IPv4 one (IPv4-mapped ``::ffff:a.b.c.d``, 6to4, NAT64 ``64:ff9b::/96``) is
judged by the IPv4 address inside. The operator may allow them all
(``WEBHOOK_ALLOW_PRIVATE``: tests, a closed network).

Why checked twice: when the URL is registered (so a refusal is a 422 the account sees)
and at every delivery, on the addresses the host resolves to *then*, and the delivery
connects to the very address it checked (:mod:`.send`). A name that resolved to a
public address at registration and to ``127.0.0.1`` later (DNS rebinding) is refused at
delivery, not followed.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["WEBHOOK_PORTS", "Resolver", "Target", "UnsafeUrlError", "check_port", "refusal",
           "resolve", "target"]

#: A host and port to the addresses it resolves to (``socket.getaddrinfo`` in service).
Resolver = Callable[[str, int], list[str]]
#: IPv6 prefixes that carry an IPv4 address in their last 32 bits (NAT64's well-known one).
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: The ports a webhook URL may name when it is registered (the web's and its usual
#: alternates): any other port of a public host is somebody's database or mail server,
#: not a receiver (:func:`check_port`). Any port with ``WEBHOOK_ALLOW_PRIVATE`` (tests,
#: a closed network).
WEBHOOK_PORTS = frozenset({80, 443, 8080, 8443})
#: A path or query as RFC 3986 allows it: unreserved and sub-delimiter characters, ``:``,
#: ``@``, ``/``, ``?``, and ``%`` only as the start of a two-hex-digit escape.
_PATH = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*")


class UnsafeUrlError(ValueError):
    """A URL no webhook is sent to; the message says why (for the account, not the log)."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where one delivery goes: the ``address`` to connect to (checked), and what the
    request names: the ``host`` (for TLS and ``Host``), its ``netloc`` and the ``path``
    with its query."""

    scheme: str
    host: str
    port: int
    netloc: str
    path: str
    address: str


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to for a TCP connection, in the resolver's order."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def refusal(address: str) -> str | None:
    """Why no webhook may go to ``address`` (``None``: it is a public one)."""
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # a link-local one's scope
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour or (
            ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in _NAT64 else None)
        if inner is not None:
            ip = inner
        elif ip.is_site_local:
            return "a site-local address"
    for kind in ("loopback", "unspecified", "link_local", "multicast", "reserved", "private"):
        if getattr(ip, f"is_{kind}"):
            return f"a {kind.replace('_', '-')} address"
    if not ip.is_global:
        return "not a public address"
    return None


def check_port(found: Target, allow_private: bool) -> None:
    """Refuse a webhook URL on a port that is not a web port (:data:`WEBHOOK_PORTS`), when
    it is registered: a URL registered before the rule keeps working (deliveries check
    its addresses, not its port), so no account's webhook stops without a word."""
    if found.port not in WEBHOOK_PORTS and not allow_private:
        raise UnsafeUrlError(f"a webhook URL's port is one of {sorted(WEBHOOK_PORTS)} (the "
                             "web's own): no other port of a public host is a receiver")


def target(url: str, allow_private: bool, resolver: Resolver = resolve) -> Target:
    """Where a delivery to ``url`` goes now: its host resolved, and the first address
    taken, once every address passed :func:`refusal` (unless ``allow_private``);
    :class:`UnsafeUrlError` otherwise."""
    if not url.isascii() or not url.isprintable() or " " in url:
        raise UnsafeUrlError("a webhook URL is printable ASCII without spaces (an "
                             "international domain name in its xn-- form)")
    parts = urlsplit(url)
    if parts.scheme not in _DEFAULT_PORTS:
        raise UnsafeUrlError("a webhook URL is http:// or https://")
    if "@" in parts.netloc:
        raise UnsafeUrlError("a webhook URL carries no user name or password")
    if not _PATH.fullmatch(parts.path) or not _PATH.fullmatch(parts.query):
        raise UnsafeUrlError("the webhook URL's path or query is not a valid URL's (RFC "
                             "3986: a % starts a two-hex-digit escape)")
    try:
        port = parts.port or _DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise UnsafeUrlError("the webhook URL's port is not a port") from None

    host = parts.hostname
    if not host:
        raise UnsafeUrlError("the webhook URL has no host")
    try:
        addresses = resolver(host, port)
    except (OSError, UnicodeError):
        raise UnsafeUrlError(f"the webhook URL's host {host} does not resolve") from None
    if not addresses:
        raise UnsafeUrlError(f"the webhook URL's host {host} does not resolve")
    if not allow_private:
        for address in addresses:
            why = refusal(address)
            if why is not None:
                raise UnsafeUrlError(f"the webhook URL's host {host} is at {address}, {why}; "
                                     "webhooks go to public addresses only")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, host, port, parts.netloc, path, addresses[0])
