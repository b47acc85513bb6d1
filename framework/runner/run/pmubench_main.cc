// main() of the pmubench_main library. Weak, so that a file converted from
// Google Benchmark with PMUBENCH_MAIN() (a strong main) may link
// pmubench_main too, as the recipes of docs/building.md do.
#include "framework/runner/run/run_main.h"

__attribute__((weak)) int main(int argc, char** argv) {
  return pmubench::RunMain(argc, argv);
}
