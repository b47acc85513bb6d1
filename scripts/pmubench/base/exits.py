"""The exit codes of every pmubench tool, defined once.

  EXIT_OK            0  done: no regression (compare), written (plot, merge,
                        convert)
  EXIT_REGRESSION    1  compare: at least one regression beyond its threshold
  EXIT_NEEDS_HAND    1  convert: converted, some places listed need a hand
  EXIT_STEP_FAILED   1  history_branch: the step failed (a remote that cannot
                        be read, a push that would lose runs); the CI job
                        must stop
  EXIT_BAD_INPUT     2  bad input or usage, or no Python that can run the
                        tool; nothing was written
  EXIT_INCONCLUSIVE  4  compare: nothing in the comparison could catch a
                        slowdown
  stopped_by(N)      128 + N: stopped by signal N (SIGTERM, SIGINT, SIGHUP)

Standard library only, no syntax newer than Python 3.6 (launch imports it).
"""

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_NEEDS_HAND = 1
EXIT_STEP_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 4


def stopped_by(signum):
    """The exit status of a tool stopped by signal `signum`, as a shell's."""
    return 128 + signum
