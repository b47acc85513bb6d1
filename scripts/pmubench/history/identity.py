"""Machine identity: the stable facts of a run's context that decide its
numbers, hashed. Two runners that differ in any of them are two series,
never one series with a fake step.

Facts read from Google Benchmark's context: num_cpus, the caches (type,
level, size, sharing), library_build_type; pmubench's: pmubench_pmus,
pmubench_backend; for a simulated run (pmubench_backend callgrind)
pmubench_valgrind and pmubench_cache_geometry. The CPU model, the kernel
and, for a simulated run, the CPU the guest saw (its ISA level decides
glibc's string functions) are not in Google Benchmark's context: pass them
with --benchmark_context=cpu_model=...,kernel=...,guest_cpu=... (docs/history.md
shows how) and they join the identity; so does the project's own build type,
--benchmark_context=project_build=Release (library_build_type is Google
Benchmark's library's, "debug" in many a release build). Left out on purpose: host_name
(a hosted CI runner's changes every job), mhz_per_cpu (varies with the
clock), load_avg, date, executable.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# project_build: the project's own build type (CMAKE_BUILD_TYPE), which
# Google Benchmark's context lacks (its library_build_type is the library's).
OPTIONAL_FACTS = ("cpu_model", "kernel", "guest_cpu", "project_build")
SIMULATED_FACTS = ("pmubench_valgrind", "pmubench_cache_geometry")


def backend_of(context: dict[str, Any]) -> str:
    return str(context.get("pmubench_backend") or "native")


def facts_of(context: dict[str, Any]) -> dict[str, Any]:
    """The identity's facts, as a JSON-able dict with sorted keys."""
    facts: dict[str, Any] = {
        "backend": backend_of(context),
        "num_cpus": context.get("num_cpus"),
        "caches": sorted(
            (str(c.get("type", "")), c.get("level"), c.get("size"), c.get("num_sharing"))
            for c in context.get("caches", []) if isinstance(c, dict)),
        "build_type": context.get("library_build_type"),
        "pmus": context.get("pmubench_pmus"),
    }
    if facts["backend"] == "callgrind":
        for key in SIMULATED_FACTS:
            facts[key.replace("pmubench_", "")] = context.get(key)
    for key in OPTIONAL_FACTS:
        if key in context:
            facts[key] = str(context[key])
    return {k: v for k, v in sorted(facts.items()) if v is not None}


def identity_of(facts: dict[str, Any]) -> str:
    """The SHA-256 of the facts' canonical JSON."""
    blob = json.dumps(facts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def default_name(facts: dict[str, Any], identity: str) -> str:
    """A readable name: backend, CPUs, and the identity's first digits
    ('callgrind-2cpu-1a2b3c4d')."""
    cpus = facts.get("num_cpus")
    return f"{facts['backend']}-{cpus}cpu-{identity[:8]}" if cpus else \
        f"{facts['backend']}-{identity[:8]}"
