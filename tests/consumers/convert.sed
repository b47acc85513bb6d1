# Converts a Google Benchmark file to pmubench: sed -f convert.sed in.cc
s|#include <benchmark/benchmark.h>|#include "framework/pmubench.h"|
s/\bBENCHMARK_MAIN()/PMUBENCH_MAIN()/g
s/\bBENCHMARK\(_[A-Z0-9_]*\)\?(/PMU_&/g
s/\bbenchmark::State\b/pmubench::State/g
s/\bbenchmark::Fixture\b/pmubench::Fixture/g
