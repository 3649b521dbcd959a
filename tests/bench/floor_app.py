"""The floors of ``make bench-api``: the least a Flask endpoint (and one with a Redis
compare-and-set on a 6 KB JSON value) can cost. Part of the benchmark harness, not
the product.

The compare-and-set floor comes twice: as a bare Flask app writes it, with the
standard library's ``json`` (what Flask itself uses), and with orjson, the C
encoder the product uses for its hot responses. The issue quotes both (about
1,650 and 2,100 req/s here); the benchmark prints the product's ratio to each."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import orjson
import redis
from flask import Flask, Response

CAS = """
local cur = redis.call('HGET', KEYS[1], 'v')
if cur ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
redis.call('EXPIRE', KEYS[1], 3600)
return 1
"""


def value_6kb() -> dict:
    """A JSON document of about 6 KB shaped like a game view (nested lists and dicts)."""
    players = [{"seat": s, "name": f"p{s}", "hand": ["7H", "8H", "9H", "TS"] * 3,
                "round_scores": list(range(11)), "total": 55} for s in range(8)]
    return {"version": 0, "status": "in_progress", "players": players,
            "table": [["7H", "8H", "9H"]] * 30, "log": ["draw", "discard"] * 60}


def create_app() -> Flask:
    app = Flask("floor")
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    script = client.register_script(CAS)

    @app.get("/hello")
    def hello() -> Response:
        return Response(b'{"hello":"world"}', content_type="application/json")

    def compare_and_set(key: str, loads: Callable[[bytes], Any],
                        dumps: Callable[[Any], bytes]) -> Response:
        version, blob = client.hmget(key, "v", "s")
        if blob is None:
            doc = value_6kb()
            client.hset(key, mapping={"v": 0, "s": dumps(doc)})
            version = b"0"
        else:
            doc = loads(blob)
        doc["version"] = int(version) + 1
        out = dumps(doc)
        ok = script(keys=[key], args=[int(version), doc["version"], out])
        return Response(out, status=200 if ok else 409, content_type="application/json")

    @app.post("/cas/<int:n>")
    def cas(n: int) -> Response:
        return compare_and_set(f"floor:{{{n}}}", orjson.loads, orjson.dumps)

    @app.post("/cas-json/<int:n>")
    def cas_json(n: int) -> Response:
        return compare_and_set(f"floor:{{json-{n}}}", json.loads,
                               lambda doc: json.dumps(doc).encode())

    return app
