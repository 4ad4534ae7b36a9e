"""Helpers for the Mintlify host tests: the pinned `mint` CLI and the Miles host repository."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from support import CORPUS, ROOT

MINT = ROOT / ".mint" / "node_modules" / ".bin" / "mint"
HOST_A = "612ef91fbd9ba4fb52dc8ee2e47a8a8be8c8204f"
HOST_B = "31ce04d70990e9f259272242719ebd2b80c0aec6"
#: The hand port's navigation of the section (commit A), as the config's ``nav:``.
NAV = """\
    nav:
      - index.md
      - Getting Started:
        - getting-started/installation.md
        - getting-started/quick-start.md
      - User Guide:
        - user-guide/cli-reference.md
        - user-guide/concepts.md
        - user-guide/customization.md
        - user-guide/launch-script.md
        - user-guide/recipe-verification.md
        - user-guide/rewards.md
      - Models:
        - models/cosmos/cosmos3.md
        - models/h3/h3.md
        - models/ltx/ltx2.md
        - models/qwen-image/qwen-image.md
        - models/sd3/sd3.md
        - models/wan/wan2-2.md
      - Advanced:
        - advanced/deterministic.md
        - advanced/dtype-control.md
        - advanced/lora.md
        - advanced/sde-backend.md
        - advanced/single-prompt-multi-gen.md
        - advanced/streaming-reward.md
      - Developer:
        - developer/contributor-guide.md
"""


def ensure_mint() -> Path:
    """The pinned mint CLI (tests/setup_mint.sh installs it into ./.mint; idempotent)."""
    if not MINT.exists():
        done = subprocess.run(["bash", str(ROOT / "tests" / "setup_mint.sh")],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    return MINT


def broken_links(docs: Path, home: Path, *, anchors: bool = False) -> dict[str, list[str]]:
    """``mint broken-links`` (offline) in ``docs``: broken links by file (``anchors``: with
    ``--check-anchors``). ``home`` keeps mint's state out of the user's HOME."""
    env = {**os.environ, "HOME": str(home), "NO_COLOR": "1", "CI": "1"}
    flags = ["--check-anchors"] if anchors else []
    done = subprocess.run([str(ensure_mint()), "broken-links", "--telemetry", "false", *flags],
                          cwd=docs, capture_output=True, text=True, env=env, timeout=600)
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", done.stdout + done.stderr)
    assert "Unable to parse" not in text and "Failed to read" not in text, text[-2000:]
    if "no broken links" in text:
        return {}
    assert "broken link" in text, text[-2000:]
    found: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.strip().startswith("\u23bf"):
            found.setdefault(current, []).append(line.strip()[1:].strip())
        elif line.strip() and not line.startswith((" ", "found", "\u280b")) and \
                "checking" not in line:
            current = line.strip()
    return found


def make_host(target: Path) -> Path:
    script = CORPUS / "make_mintlify.sh"
    out = subprocess.run(["bash", str(script), "miles_host", str(target)],
                         capture_output=True, text=True, check=True).stdout
    assert HOST_A in out and HOST_B in out, out
    return target
