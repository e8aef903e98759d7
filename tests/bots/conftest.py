"""The strong bot's tests drive bots with the protocol tests' in-process referee
(``tests/protocol/protocol_driver.py``): make it importable from here too."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "protocol"))
