"""A little disk space set aside so a sync's failure can be recorded on a full disk.

A sync that fails because the disk is full must still record why, or ``status`` can only
say the run "ended without finishing". Each run keeps a small file of zeros in the
tenant's directory; when recording a failure fails, the run deletes it (and its own
unpublished files), which frees enough for SQLite to write the record. The next run
puts it back once there is room again.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Final

logger = logging.getLogger(__name__)

RESERVE_FILE: Final = "space-reserve"
RESERVE_BYTES: Final = 64 * 1024
"""Enough for SQLite to append the failed run's record to its journal a few times over."""


class SpaceReserve:
    """The reserve file of one tenant directory."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / RESERVE_FILE

    def keep(self) -> bool:
        """Make sure the reserve exists (best effort: on a full disk it may not)."""
        try:
            if self.path.stat().st_size == RESERVE_BYTES:
                return True
        except FileNotFoundError:
            pass
        except OSError:
            return False
        try:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with open(descriptor, "wb") as handle:
                handle.write(bytes(RESERVE_BYTES))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            logger.warning("cannot set aside %d bytes in %s: %s", RESERVE_BYTES, self.path, exc)
            self.release()
            return False
        return True

    def release(self) -> None:
        """Give the reserved space back to the file system."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            logger.warning("cannot remove %s: %s", self.path, exc)
