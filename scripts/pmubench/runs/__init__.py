"""Reading runs: Google Benchmark JSON as pmubench writes it (benchjson),
two files' runs paired (matching), rounds joined (merge), the backend and
machine of a file (machines), folded call stacks (folded)."""
