"""``--budget``: how long a tune may measure: ``20m``, ``90s``, ``1h30m``, or plain seconds."""

from __future__ import annotations

import re

from ascgen.common.errors import UserError, shown

BUDGET = re.compile(r"^(?:(?P<h>\d+(?:\.\d+)?)h)?(?:(?P<m>\d+(?:\.\d+)?)m)?(?:(?P<s>\d+(?:\.\d+)?)s?)?$")
MAX_BUDGET_S = 7 * 24 * 3600


def parse_budget(text: str) -> float:
    """Seconds; one line saying what is wrong otherwise."""
    m = BUDGET.match(text.strip().lower())
    if not text.strip() or not m:
        raise UserError(f"--budget {shown(text)}: expected a duration such as 20m, 90s or 1h30m")
    seconds = float(m["h"] or 0) * 3600 + float(m["m"] or 0) * 60 + float(m["s"] or 0)
    if not 0 < seconds <= MAX_BUDGET_S:
        raise UserError(f"--budget {shown(text)}: must be more than 0 and at most 7 days")
    return seconds
