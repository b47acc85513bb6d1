"""Prints how long scripts/convert's conversion takes by number of cases.

  cd scripts && /usr/bin/python3 -m dev.convert_cost [N ...]

(default sizes: 500 2000 8000 20000).

Each file holds N cases, half functions registered with BENCHMARK and half
fixtures with BENCHMARK_F (tests/python/test_convert_files.py's shape); the
figure is the CPU time of pmubench.convert.convert_source on it, the best
of three, and its ratio to the first size's per case.
"""

import sys
import time

from pmubench import convert


def many_cases(n):
    parts = ["#include <benchmark/benchmark.h>\n"]
    for i in range(n // 2):
        parts.append(f"static void BM_{i}(benchmark::State& state) {{\n"
                     f"  for (auto _ : state) benchmark::DoNotOptimize({i});\n}}\n"
                     f"BENCHMARK(BM_{i})->Arg({i});\n")
        parts.append(f"class F{i} : public benchmark::Fixture {{\n public:\n"
                     f"  void SetUp(const benchmark::State&) override {{}}\n}};\n"
                     f"BENCHMARK_F(F{i}, Run)(benchmark::State& st) {{\n"
                     f"  for (auto _ : st) {{}}\n}}\n")
    return "".join(parts)


def cpu_seconds(text):
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        convert.convert_source(text)
        best = min(best, time.process_time() - start)
    return best


def main(argv):
    sizes = [int(a) for a in argv] or [500, 2000, 8000, 20000]
    first = None
    print(f"{'cases':>7} {'bytes':>10} {'cpu s':>8} {'us/case':>8} {'vs first':>8}")
    for n in sizes:
        text = many_cases(n)
        seconds = cpu_seconds(text)
        per_case = seconds / n
        first = first or per_case
        print(f"{n:>7} {len(text):>10} {seconds:>8.3f} {per_case * 1e6:>8.1f} "
              f"{per_case / first:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
