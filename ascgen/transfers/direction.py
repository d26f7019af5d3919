"""Where a transfer's bytes are at each end: the one name for h2d, d2h, d2d and h2h.

A copy's direction (aclrtMemcpyAsync: source to destination) and a link transfer's column (HIXL:
the local side's memory, then the remote side's) use the same four values; their text is the
member's name in lower case (Direction.H2D is h2d)."""

from __future__ import annotations

from enum import StrEnum, auto


class Direction(StrEnum):
    H2D = auto()
    D2H = auto()
    D2D = auto()
    H2H = auto()

    @property
    def first_on_host(self) -> bool:
        """The first end (a copy's source, a link transfer's local side) is host memory."""
        return self.value[0] == "h"

    @property
    def second_on_host(self) -> bool:
        """The second end (a copy's destination, a link transfer's remote side) is host memory."""
        return self.value[2] == "h"


# aclrtMemcpyAsync has no host-to-host copy on the device (the simulator refuses it, 207000).
COPY_DIRECTIONS = (Direction.H2D, Direction.D2H, Direction.D2D)
# HIXL's columns, in its table's order.
LINK_DIRECTIONS = (Direction.D2D, Direction.H2D, Direction.D2H, Direction.H2H)


def parse(text: str) -> Direction:
    """The Direction a text names (h2d gives Direction.H2D); ValueError naming the four otherwise."""
    try:
        return Direction(text)
    except ValueError:
        raise ValueError(f"not a direction: {text!r} (one of {', '.join(d.value for d in Direction)})") from None
