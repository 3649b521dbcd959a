"""The in-memory :class:`~service.storage.replies.ReplyStore`: reads the reply slots the
memory game store's saves keep on each game (:mod:`.shared`)."""

from __future__ import annotations

from ..errors import ReplyKeySupersededError
from ..replies import ReplyStore, StoredReply, split_reply_key
from .shared import Shared, StoredGame

__all__ = ["MemoryReplies", "slot_reply"]


def slot_reply(game: StoredGame, reply_key: str) -> StoredReply | None:
    """The reply of ``reply_key`` if it is its slot's latest; raises if it was superseded."""
    slot, key_id = split_reply_key(reply_key)
    ids, reply = game.replies.get(slot, ([], None))
    if ids and ids[0] == key_id:
        return reply
    if key_id in ids:
        raise ReplyKeySupersededError(reply_key)
    return None


class MemoryReplies(ReplyStore):
    """Replies of the games in ``shared``."""

    def __init__(self, shared: Shared) -> None:
        self._shared = shared

    def stored_reply(self, game_id: str, reply_key: str) -> StoredReply | None:
        with self._shared.lock:
            game = self._shared.games.get(game_id)
            return None if game is None else slot_reply(game, reply_key)
