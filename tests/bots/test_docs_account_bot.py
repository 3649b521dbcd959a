"""The account bot printed in docs/accounts.md ("A bot that runs unattended") runs as
shown, on its key alone, against a live gunicorn whose streams end every 2 s (so the bot
reconnects several times while it waits): challenged by another account, it accepts and
makes its moves.

Why the page's own text: a bot author copies it; a copy kept in a test would drift from
it silently (as tests/bots/test_docs_bot.py does for docs/bots.md's bot).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.bots.challenger import challenge_until_it_moves, register

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "accounts.md"


def docs_account_bot() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    (bot,) = [b for b in blocks if "account_bot.py" in b]
    return bot


def test_the_account_bot_in_the_docs_accepts_a_challenge_and_moves(
        live_server: str, tmp_path: Path) -> None:
    script = tmp_path / "account_bot.py"
    script.write_text(docs_account_bot())
    handle, key = register(live_server, "doc-bot", bot=True)
    # as the page runs it: the key in the environment, the URL as the argument
    out = tmp_path / "out.txt"
    with out.open("w") as written:
        bot = subprocess.Popen([sys.executable, str(script), live_server], cwd=tmp_path,
                               env={**os.environ, "THREE_THIRTEEN_KEY": key},
                               stdout=written, stderr=subprocess.STDOUT)
        try:
            moves = challenge_until_it_moves(
                live_server, handle,
                lambda: None if bot.poll() is None else out.read_text())
        finally:
            bot.kill()
            bot.wait(10)
    assert moves[0]["type"] == "draw" and moves[1]["type"] in ("discard", "went_out"), moves
    # what it printed: one line per move it sent, naming the game and the version
    printed = [line for line in out.read_text().splitlines() if " v" in line]
    assert len(printed) >= 2, out.read_text()
    assert re.fullmatch(r"\S+ v\d+: \{'type': 'draw', 'source': 'stock'\}", printed[0])
