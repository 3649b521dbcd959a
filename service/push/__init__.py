"""The push tier: a process made for waiting, beside the web workers.

A waiting request (a game's long-poll with ``wait_version`` or ``wait=turn``, its event
log's or a seek's with ``timeout``, a game's or an account's stream) costs a web worker
a greenlet, and each answer Flask's whole request machinery: woken by one move, 10,000
of them took 2.9 CPU-seconds (2 cores, gevent workers). This package holds them in an
asyncio server on uvloop instead (:mod:`.server`, HTTP parsed by httptools:
:mod:`.http`), where each watched channel (a game's, an account's, a seek pool's) is one
:class:`~.feed.Feed`: one Redis subscription, one read per publication, and for a game
one rendering per audience, the same bytes written to every waiter.

It holds no game logic, as Lichess's lila-ws holds none: what to answer is decided by
the service layer (:mod:`service.play`) and the parsers and framing both front ends
share (:mod:`service.wire`), so a client cannot tell which process answered. The game
server never waits for it. It reads the stores and listens to the channels the writes
publish on, and writes only what the same request writes on a web worker (a stream
ticket used up; an account stream's holds on its seeks: :mod:`.accounts`); its one
message of its own, a change of a stream of many games, is a publication, which writes
no key (:mod:`.multiplex`). docs/streams.md and docs/design.md say how a deployment
routes the waiting requests here, and what stays with the web workers.
"""
