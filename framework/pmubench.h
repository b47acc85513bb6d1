// Kept for files written before <pmubench/pmubench.h>: the public header.
#include <pmubench/pmubench.h>  // IWYU pragma: export
