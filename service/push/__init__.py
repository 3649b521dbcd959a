"""The push tier: a process made for waiting, beside the web workers.

A waiting request (a long-poll with ``wait_version`` or ``wait=turn``, a game's stream)
costs a web worker a greenlet, and each answer Flask's whole request machinery: woken
by one move, 10,000 of them took 2.9 CPU-seconds (2 cores, gevent workers). This package holds them in
an asyncio server on uvloop instead (:mod:`.server`, HTTP parsed by httptools:
:mod:`.http`), where each watched game is one :class:`~.feeds.Feed`: one Redis
subscription, one read per version, one rendering per audience, the same bytes written
to every waiter.

It holds no game logic, as Lichess's lila-ws holds none: what to answer is decided by
the service layer (:mod:`service.play`) and the parsers and framing both front ends
share (:mod:`service.wire`), so a client cannot tell which process answered. The game
server never waits for it, and it never writes a store: it reads the stores and listens
to the channel the save publishes on (its one message of its own, a change of a stream
of many games, is a ``PUBLISH``, which writes no key: :mod:`.multiplex`). docs/streams.md and docs/design.md say how a deployment
routes the waiting requests here, and what stays with the web workers.
"""
