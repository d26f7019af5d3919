"""Where the tests build C++: a folder of their own, never the user's build/ (which `ascgen
build` and `ascgen bench` use). ASCGEN_TEST_BUILD moves it (CI caches it, or a scratch disk)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TEST_BUILD = Path(os.environ.get("ASCGEN_TEST_BUILD") or REPO / "build-tests").resolve()
