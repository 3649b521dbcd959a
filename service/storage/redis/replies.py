"""Idempotent replies in Redis: one key per seat (its slot), written by the save script
(:mod:`.games`) and read here.

``ttt:{<id>}:reply:<slot>`` holds the key ids of the slot's latest Idempotency-Key and of
up to 16 superseded ones (of one length: 16 hex digits from the play layer; latest
first), a newline, then the first response to the latest key, zlib-compressed. Its own
TTL (``IDEMPOTENCY_TTL_SECONDS``) is renewed by each keyed action of the seat.
"""

from __future__ import annotations

import zlib

import orjson

from ..errors import ReplyKeySupersededError
from ..replies import ReplyStore, StoredReply, split_reply_key
from .connection import RedisConnection

__all__ = ["RedisReplies", "reply_blob", "reply_of", "slot_key"]


def slot_key(game_id: str, slot: str) -> str:
    """The key of a reply slot (the game's hash tag: the save script writes it)."""
    return f"ttt:{{{game_id}}}:reply:{slot}"


def reply_blob(reply: StoredReply) -> bytes:
    """Compressed: a view is repetitive JSON (2 KB becomes about 0.6 KB), and zlib at
    level 6 takes tens of microseconds for it, a small part of an action's CPU."""
    return zlib.compress(
        orjson.dumps([reply.fingerprint, reply.status, reply.etag, reply.body.decode()]))


def reply_of(blob: bytes) -> StoredReply:
    """The reply of :func:`reply_blob`."""
    fingerprint, status, etag, body = orjson.loads(zlib.decompress(blob))
    return StoredReply(fingerprint, status, etag, body.encode())


def _slot_reply(value: bytes, reply_key: str) -> StoredReply | None:
    """The reply in a slot's stored value if ``reply_key`` is its latest key (as the save
    script decides: superseded raises, a key the slot never saw is ``None``)."""
    _, key_id = split_reply_key(reply_key)
    kept, _, blob = value.partition(b"\n")
    ids = [kept[i:i + len(key_id)].decode() for i in range(0, len(kept), len(key_id))]
    if ids and ids[0] == key_id:
        return reply_of(blob)
    if key_id in ids:
        raise ReplyKeySupersededError(reply_key)
    return None


class RedisReplies(ReplyStore):
    """Reads the reply slots the save script writes."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    def stored_reply(self, game_id: str, reply_key: str) -> StoredReply | None:
        slot, _ = split_reply_key(reply_key)
        client = self.connection.client
        value = self.connection.run(lambda: client.get(slot_key(game_id, slot)))
        return None if value is None else _slot_reply(value, reply_key)
