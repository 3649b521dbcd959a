"""The bot printed in docs/bots.md ("Write your own bot") runs as shown against the live service.

Why extract it instead of keeping a copy: documentation code rots silently; this
test runs the exact text a reader would paste into ``my_bot.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "bots.md"


def docs_bot() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    (bot,) = [b for b in blocks if "my_bot.py" in b]
    return bot


def test_the_bot_in_the_docs_is_about_twenty_lines_of_code() -> None:
    code = [line for line in docs_bot().splitlines() if line.strip()]
    assert len(code) <= 32


def test_the_bot_in_the_docs_plays_a_full_game_as_shown(service_url: str,
                                                        tmp_path: Path) -> None:
    script = tmp_path / "my_bot.py"
    script.write_text(docs_bot())
    proc = subprocess.run([sys.executable, str(script), service_url], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert re.fullmatch(r"greedy: \d+", lines[0]) or re.fullmatch(r"my-bot: \d+", lines[0])
    assert lines[-1].startswith("winners: [")
