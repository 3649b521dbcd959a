"""Real-time delivery: the per-worker notification hub that parked requests wait on."""

from .hub import Hub, Watch, channel_of, game_of_channel

__all__ = ["Hub", "Watch", "channel_of", "game_of_channel"]
