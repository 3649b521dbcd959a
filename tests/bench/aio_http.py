"""A minimal asyncio HTTP/1.1 client for the benchmarks, and the few game calls they make.

Why not an HTTP library: the benchmarks hold thousands of connections in one process
and must not be what delays the last of them; a keep-alive connection that writes a
request and reads a status line, headers and a ``Content-Length`` body (or the lines of
a chunked stream) is all they need, at a few KB per connection.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["HOST", "Http", "new_game", "on_turn_view", "play", "seat_view"]

HOST = "127.0.0.1"


class Http:
    """One keep-alive HTTP/1.1 connection, enough of the protocol for the benchmarks;
    from the ``source`` address when given (another loopback address is another client
    to the service: ``make bench-bots``, ``make bench-push``)."""

    def __init__(self, port: int, source: str | None = None) -> None:
        self.port = port
        self.source = source
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter

    async def open(self) -> Http:
        self.reader, self.writer = await asyncio.open_connection(
            HOST, self.port, local_addr=(self.source, 0) if self.source else None)
        return self

    def send(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", f"Content-Length: {len(data)}"]
        if body is not None:
            lines.append("Content-Type: application/json")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)

    async def head(self) -> tuple[int, dict[str, str]]:
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        return int(status_line.split()[1]), headers

    async def response(self) -> tuple[int, Any]:
        status, headers = await self.head()
        body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        return status, json.loads(body) if body else None

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """One request; if the server closed the idle keep-alive connection (after its
        ``keepalive`` seconds), once more on a new one."""
        for attempt in range(2):
            try:
                self.send(method, path, body, headers)
                return await self.response()
            except (ConnectionError, asyncio.IncompleteReadError):
                if attempt:
                    raise
                self.close()
                await self.open()
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.writer.close()


async def new_game(port: int, seed: str,
                   source: str | None = None) -> tuple[str, list[str], dict[str, Any]]:
    """A new 2-player game: its id, the seats' tokens and its first (spectator) view."""
    http = await Http(port, source).open()
    status, created = await http.request(
        "POST", "/v1/games", {"players": [{"name": "a"}, {"name": "b"}], "seed": seed})
    http.close()
    assert status == 201, created
    return created["game_id"], [s["token"] for s in created["seats"]], created["state"]


async def play(http: Http, game_id: str, tokens: list[str], view: dict[str, Any]) -> dict[str, Any]:
    """One action on ``game_id`` for the seat on turn (draw from stock, or discard)."""
    seat = view["round"]["current_seat"]
    if view["round"]["phase"] in ("draw", "final_draw"):
        action: dict[str, Any] = {"type": "draw", "source": "stock"}
    else:
        action = {"type": "discard", "card": view["you"]["hand"][0]}
    for _ in range(2):
        status, body = await http.request(
            "POST", f"/v1/games/{game_id}/actions", action,
            {"Authorization": f"Bearer {tokens[seat]}"})
        if status == 200:
            return body  # type: ignore[no-any-return]
    raise RuntimeError(f"action refused: {status} {body}")


async def seat_view(http: Http, game_id: str, token: str) -> dict[str, Any]:
    status, view = await http.request("GET", f"/v1/games/{game_id}",
                                      headers={"Authorization": f"Bearer {token}"})
    assert status == 200, view
    return view  # type: ignore[no-any-return]


async def on_turn_view(http: Http, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """The view of the seat whose turn it is (what :func:`play` takes)."""
    view = await seat_view(http, game_id, tokens[0])
    return await seat_view(http, game_id, tokens[view["round"]["current_seat"]])
