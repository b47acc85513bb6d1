"""What convert rewrites and what it says: the registration macros, the kinds
of change, and the Result of one file (its text, changes and notes).
"""

from __future__ import annotations

from dataclasses import dataclass, field


PMUBENCH_INCLUDE = "<pmubench/pmubench.h>"


# Google Benchmark 1.7.1's registration macros (benchmark.h). Each has a PMU_
# twin in framework/runner/api/registration_macros.h with the same arguments.
CASE_MACROS = (
    "BENCHMARK",
    "BENCHMARK_WITH_ARG",
    "BENCHMARK_WITH_ARG2",
    "BENCHMARK_WITH_UNIT",
    "BENCHMARK_RANGE",
    "BENCHMARK_RANGE2",
    "BENCHMARK_CAPTURE",
    "BENCHMARK_TEMPLATE",
    "BENCHMARK_TEMPLATE1",
    "BENCHMARK_TEMPLATE2",
)


# Followed by the case body's parameter list: `(benchmark::State& st) {`.
FIXTURE_BODY_MACROS = (
    "BENCHMARK_F",
    "BENCHMARK_DEFINE_F",
    "BENCHMARK_TEMPLATE_F",
    "BENCHMARK_TEMPLATE1_F",
    "BENCHMARK_TEMPLATE2_F",
    "BENCHMARK_TEMPLATE_DEFINE_F",
    "BENCHMARK_TEMPLATE1_DEFINE_F",
    "BENCHMARK_TEMPLATE2_DEFINE_F",
)


FIXTURE_MACROS = FIXTURE_BODY_MACROS + ("BENCHMARK_REGISTER_F",)


ALL_MACROS = CASE_MACROS + FIXTURE_MACROS


# Kinds of change, in the order the summary lists them.
KIND_INCLUDE = "#include"


KIND_MAIN = "BENCHMARK_MAIN() -> PMUBENCH_MAIN()"


KIND_STATE = "benchmark::State -> pmubench::State"


KIND_FIXTURE = "benchmark::Fixture -> pmubench::Fixture"


KIND_RANGE_XY = "range_x()/range_y() -> range(0)/range(1)"


def macro_kind(name: str) -> str:
    return f"{name} -> PMU_{name}"


KIND_ORDER = ([KIND_INCLUDE] + [macro_kind(m) for m in ALL_MACROS]
              + [KIND_STATE, KIND_FIXTURE, KIND_RANGE_XY, KIND_MAIN])


@dataclass(frozen=True)
class Change:
    kind: str
    line: int


@dataclass(frozen=True)
class Note:
    line: int
    message: str
    # True: the converted file will not build, or a case will not count,
    # until a person finishes this by hand.
    blocking: bool = False


@dataclass
class Result:
    text: str
    changes: list[Change] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    # The input used Google Benchmark (an include or a macro) or is already
    # a pmubench file. False: not a file this tool converts.
    recognized: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def blocking(self) -> list[Note]:
        return [n for n in self.notes if n.blocking]


class NotGoogleBenchmark(ValueError):
    """The text neither includes benchmark/benchmark.h nor uses a BENCHMARK
    macro (nor is it a pmubench file already)."""
