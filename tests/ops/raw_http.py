"""Requests no HTTP client sends (a malformed request line, a 10 KB URL, 30,000 header
fields), written to a server as bytes, and its answer read back."""

from __future__ import annotations

import socket
from dataclasses import dataclass


@dataclass
class RawAnswer:
    status: int
    headers: dict[str, str]
    body: bytes


def raw_exchange(base: str, request: bytes) -> RawAnswer:
    """Send ``request`` as it is on one connection to ``base`` (``http://host:port``) and
    read the answer until the server closes the connection."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=15) as conn:
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return RawAnswer(int(lines[0].split()[1]), headers, body)
