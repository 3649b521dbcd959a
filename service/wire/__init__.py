"""What both HTTP front ends say the same way: Flask's (``service/api``) and the push tier's
(``service/push``).

Why a package of its own: a waiting request may be answered by either process (the push
tier when it runs, gunicorn's workers as the fallback), and a client must not be able to
tell which. So everything that decides the bytes of an answer without reading a store
lives here once, free of Flask: problem documents, the query and header parsers, the wait
limits, stream framing, the headers every answer carries. The push process imports this
and the service layer, never the Flask app.
"""
