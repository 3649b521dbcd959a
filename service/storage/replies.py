"""Idempotent replies: the first response to a keyed action, kept for its retries.

A reply is written only by the save of the move it answers (:meth:`.games.GameStore.save`,
in the same atomic step), so a retry finds either no move and no reply, or both. This
interface is the other half: reading a stored reply back before acting again.

Why one reply per slot (the acting seat's): a client retries only its latest request (it
waits for an answer before sending the next), so a seat needs one reply kept, not one per
action (which made replies 95 % of a game's memory). A new key replaces its slot's
reply; the slot remembers the ids of its last :data:`SUPERSEDED_KEYS_KEPT` replaced keys,
and one of those is refused (:class:`~.errors.ReplyKeySupersededError`) rather than acted
on a second time. An older key than that is new to the store (a client using
``If-Match`` then gets a version conflict, as the game has moved on).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

__all__ = ["SUPERSEDED_KEYS_KEPT", "ReplyStore", "StoredReply", "split_reply_key"]

#: How many superseded keys a reply slot remembers besides its latest.
SUPERSEDED_KEYS_KEPT = 16


def split_reply_key(reply_key: str) -> tuple[str, str]:
    """``"<slot>:<key id>"`` as (slot, key id); a key without ``:`` is its own slot."""
    slot, sep, key_id = reply_key.rpartition(":")
    return (slot, key_id) if sep else (reply_key, reply_key)


@dataclass(frozen=True, slots=True)
class StoredReply:
    """The first response to an idempotent request, replayed on a retry with the same key."""

    fingerprint: str
    status: int
    etag: str | None
    body: bytes


class ReplyStore(ABC):
    """The replies the saves of a game stored, by reply key (``"<slot>:<key id>"``)."""

    @abstractmethod
    def stored_reply(self, game_id: str, reply_key: str) -> StoredReply | None:
        """The reply stored under ``reply_key`` by an earlier save, if it is its slot's
        latest; ``None`` if the slot never saw that key (or the game or slot expired);
        :class:`~.errors.ReplyKeySupersededError` if the key was replaced by a newer one."""
