"""Reading runs: Google Benchmark JSON as pmubench writes it (benchjson),
two files' runs paired (matching), rounds joined (merge), the backend and
machine of a file (machines), the source file of each case (case_files),
folded call stacks (folded)."""
