"""What every history table shares and what reading and writing one needs
without SQLAlchemy (schema.py holds the tables): the schema version, the
longest name kept, and a samples row's packed values. Standard library
only: `history.py ingest` imports no SQLAlchemy (sqlite_direct.py,
pg_direct.py)."""

from __future__ import annotations

import array
import struct
import sys

SCHEMA_VERSION = 2

# The longest name (benchmark, metric, machine, branch) kept, on SQLite and
# PostgreSQL alike: the VARCHAR(200) columns' width, and short enough that
# a series_key index row fits PostgreSQL's b-tree page (ingest checks it).
MAX_NAME = 200

# Bytes of one packed value.
VALUE_BYTES = 8


def _pack_little(values: list[float]) -> bytes:
    return array.array("d", values).tobytes()


def _pack_big(values: list[float]) -> bytes:
    packed = array.array("d", values)
    packed.byteswap()
    return packed.tobytes()


# A samples row's packed column: the values as little-endian float64s
# (array's, a third of struct.pack's time with its format string per row).
pack = _pack_little if sys.byteorder == "little" else _pack_big


def unpack(packed: bytes) -> tuple[float, ...]:
    """The values pack() stored."""
    return struct.unpack(f"<{len(packed) // VALUE_BYTES}d", packed)
