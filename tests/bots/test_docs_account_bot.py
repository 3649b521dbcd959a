"""The account bot printed in docs/accounts.md ("A bot that runs unattended") runs as
shown, on its key alone, against a live gunicorn whose streams end every 2 s (so the bot
reconnects several times while it waits): challenged by another account, it accepts and
makes its moves.

Why the page's own text: a bot author copies it; a copy kept in a test would drift from
it silently (as tests/bots/test_docs_bot.py does for docs/bots.md's bot).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.bots.challenger import register, run_challenged

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
    _, printed = run_challenged([sys.executable, str(script)], tmp_path, live_server,
                                handle, key, tmp_path / "out.txt")
    # what it printed: one line per move it sent, naming the game and the version
    assert len(printed) >= 2, printed
    assert re.fullmatch(r"\S+ v\d+: \{'type': 'draw', 'source': 'stock'\}", printed[0])
