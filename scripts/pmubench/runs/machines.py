"""What measured the two files: the machine and the counting backend.

- Backend: pmubench writes "pmubench_backend" ("perf_event", the default
  and what a file without the key means, or "callgrind"), and with
  callgrind "pmubench_valgrind" ("valgrind-3.19.0") and
  "pmubench_cache_geometry" ("I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64",
  or "none" without cache simulation). Simulated counts hold for one
  backend, valgrind version and geometry only (library code takes other
  paths on valgrind's synthetic CPU, and misses follow the simulated
  caches), so `check_backends` refuses two files that differ in any of
  them (BadInput naming both values and both files).
- Machine: files from different machines (host_name, num_cpus, the caches
  of Google Benchmark's context "caches", pmubench_pmus) compare the
  machines as well as the code; `machine_differences` lists what differs,
  which every format shows at the top and `--strict` refuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pmubench.runs import benchjson

PERF_EVENT = "perf_event"


@dataclass(frozen=True)
class Backend:
    name: str                  # "perf_event" or "callgrind"
    valgrind: str | None       # "valgrind-3.19.0", with callgrind
    cache_geometry: str | None  # "I1=... D1=... LL=..." or "none"

    @property
    def simulated(self) -> bool:
        return self.name != PERF_EVENT

    def describe(self) -> str:
        """'Counts simulated by callgrind (valgrind-3.19.0; cache geometry
        I1=...): ...' for a simulating backend, '' for perf_event."""
        if not self.simulated:
            return ""
        parts = [self.valgrind or "valgrind version not recorded"]
        if self.cache_geometry in (None, ""):
            parts.append("cache geometry not recorded")
        elif self.cache_geometry == "none":
            parts.append("no cache simulation: instructions only")
        else:
            parts.append(f"cache geometry {self.cache_geometry}")
        return (f"Counts simulated by {self.name} ({'; '.join(parts)}): exact "
                "and identical run to run, not this CPU's hardware counters; "
                "times are the simulator's, not native")


def backend_of(context: dict[str, Any]) -> Backend:
    return Backend(context.get("pmubench_backend") or PERF_EVENT,
                   context.get("pmubench_valgrind"),
                   context.get("pmubench_cache_geometry"))


def check_backends(baseline: benchjson.BenchFile, contender: benchjson.BenchFile) -> Backend:
    """The two files' backend; raises BadInput when backend, valgrind
    version or cache geometry differ."""
    b, c = backend_of(baseline.context), backend_of(contender.context)
    if b.name != c.name:
        raise benchjson.BadInput(
            f"{baseline.path} was counted by the {b.name} backend and "
            f"{contender.path} by {c.name}: their counts are not comparable "
            "(a simulated count is not a hardware one); run both sides with "
            "the same backend")
    if b.valgrind != c.valgrind:
        raise benchjson.BadInput(
            f"{baseline.path} was simulated under {b.valgrind or 'an unrecorded valgrind'} "
            f"and {contender.path} under {c.valgrind or 'an unrecorded valgrind'}: "
            "library code takes other paths on another valgrind's synthetic "
            "CPU, so their counts are not comparable; run both sides under one "
            "valgrind")
    if b.cache_geometry != c.cache_geometry:
        raise benchjson.BadInput(
            f"{baseline.path} was simulated with cache geometry "
            f"{b.cache_geometry!r} and {contender.path} with "
            f"{c.cache_geometry!r}: simulated misses follow the geometry, so "
            "their counts are not comparable; run both sides with one geometry")
    return b


# Context keys that say which machine wrote a file.
MACHINE_KEYS = ("host_name", "num_cpus", "pmubench_pmus")


def _size(n: float) -> str:
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= scale:
            value = n / scale
            return f"{value:g} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n:g} B"


_CACHE_TYPE = {"Data": "d", "Instruction": "i", "Unified": ""}


def caches_text(caches: Any) -> str:
    """'L1d 48 KiB, L1i 32 KiB, L2 2 MiB, L3 105 MiB (shared by 2)'."""
    parts = []
    for cache in caches if isinstance(caches, list) else []:
        if not isinstance(cache, dict):
            continue
        level = cache.get("level", "?")
        kind = _CACHE_TYPE.get(cache.get("type"), f" {cache.get('type', '')}".rstrip())
        text = f"L{level:g}{kind}" if isinstance(level, (int, float)) else f"L?{kind}"
        if isinstance(cache.get("size"), (int, float)):
            text += f" {_size(cache['size'])}"
        sharing = cache.get("num_sharing")
        if isinstance(sharing, (int, float)) and sharing > 1:
            text += f" (shared by {sharing:g})"
        parts.append(text)
    return ", ".join(parts) or "none listed"


def _cache_key(caches: Any) -> list:
    out = []
    for cache in caches if isinstance(caches, list) else []:
        if isinstance(cache, dict):
            out.append((cache.get("type"), cache.get("level"), cache.get("size"),
                        cache.get("num_sharing")))
    return sorted(out, key=repr)


def machine_differences(base: dict[str, Any], cont: dict[str, Any]) -> list[str]:
    """What differs between the machines of two contexts, one item a key
    ('num_cpus: 2 in the baseline, 8 in the contender'); only keys both
    files record."""
    out = []
    for key in MACHINE_KEYS:
        b, c = base.get(key), cont.get(key)
        if b is not None and c is not None and b != c:
            out.append(f"{key}: {b!r} in the baseline, {c!r} in the contender")
    b, c = base.get("caches"), cont.get("caches")
    if b and c and _cache_key(b) != _cache_key(c):
        b_list = [x for x in b if isinstance(x, dict)] if isinstance(b, list) else []
        c_list = [x for x in c if isinstance(x, dict)] if isinstance(c, list) else []
        if len(b_list) == len(c_list) and all(
                (x.get("type"), x.get("level")) == (y.get("type"), y.get("level"))
                for x, y in zip(b_list, c_list)):
            # The same hierarchy: name only the caches that differ.
            pairs = [(x, y) for x, y in zip(b_list, c_list) if x != y]
            b_list, c_list = [x for x, _ in pairs], [y for _, y in pairs]
        out.append(f"caches: {caches_text(b_list)} in the baseline, "
                   f"{caches_text(c_list)} in the contender")
    return out


def machine_headline(differences: list[str]) -> str:
    return ("the two files come from different machines, so this compares the "
            "machines as well as the code (run both sides on one machine, in "
            "one job; --strict refuses this): " + "; ".join(differences))
