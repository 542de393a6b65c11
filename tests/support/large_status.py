"""Build a large status text from a real one, for the benchmark and the size tests.

Real captures top out around 60 KB; a server with thousands of sessions prints far more, almost
all of it in the TRANSACTIONS list. We repeat that list's entries (renumbering nothing: the
parser must not care) until the text reaches the wanted size.
"""

from __future__ import annotations

LIST_MARK = "LIST OF TRANSACTIONS FOR EACH SESSION:\n"


def enlarge(text: str, target_bytes: int) -> str:
    """`text` with its session list repeated until the whole is about `target_bytes` long."""
    start = text.find(LIST_MARK)
    if start < 0:
        raise ValueError("status text has no LIST OF TRANSACTIONS")
    start += len(LIST_MARK)
    end = text.find("\n----", start)           # the dashed line that opens the next section
    end = len(text) if end < 0 else end + 1
    entries = text[start:end]
    if not entries.strip():
        raise ValueError("status text has an empty session list")
    room = max(0, target_bytes - len(text))
    copies = 1 + -(-room // len(entries))     # ceil: at least target_bytes
    return text[:start] + entries * copies + text[end:]
