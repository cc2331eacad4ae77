"""A PNG screenshot of a report page in headless Chromium (when installed), for READMEs and CI."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

# Without the background-networking flags Chromium keeps trying to reach Google's hosts,
# which a closed network refuses many times a second.
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync")


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def chromium_command(page: Path, *extra: str) -> list[str]:
    """The headless Chromium command line for `page` with extra flags (e.g. --dump-dom)."""
    browser = find_chromium()
    if browser is None:
        raise FileNotFoundError("headless Chromium not installed (apt-get install -y chromium chromium-driver)")
    profile = tempfile.mkdtemp(prefix="kleval-chromium-")
    return [browser, *_FLAGS, f"--user-data-dir={profile}", *extra, Path(page).resolve().as_uri()]


def screenshot(page: Path, out_png: Path, *, width: int = 1400, height: int = 2200, timeout_s: float = 90) -> Path:
    """Render `page` and write a width x height PNG to out_png."""
    command = chromium_command(page, f"--screenshot={Path(out_png).resolve()}", f"--window-size={width},{height}")
    subprocess.run(command, check=True, timeout=timeout_s, capture_output=True)
    return Path(out_png)
