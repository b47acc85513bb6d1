"""The one front wrapper of every verdict entry point (scripts/compare.py,
scripts/history.py, scripts/history_branch.py, scripts/merge.py): signals, crashes and exit codes,
said once.

    sys.exit(front.run("compare.py", main, "the two input files"))

(the last line of compare.py, under its main guard)

- SIGTERM (a CI timeout), SIGHUP (a closed terminal) and SIGINT (Ctrl-C)
  become SystemExit(128 + N) (exits.stopped_by), which unwinds through the
  clean-up in progress: atomic.write_atomically removes its temp file, an
  open database transaction rolls back. The default actions would leave
  the temp file behind, and Ctrl-C's KeyboardInterrupt would print a
  traceback.
- An unexpected exception is a bug: its traceback, one line saying it is
  not a regression, and exit 2 (EXIT_BAD_INPUT). Python's own status for a
  traceback is 1, which CI reads as a regression.

Standard library only.
"""

import signal
import sys
import traceback

from pmubench.base.exits import EXIT_BAD_INPUT, stopped_by
from pmubench.base.stop_signals import STOP_SIGNALS


def _exit_on(signum, _frame):
    raise SystemExit(stopped_by(signum))


def catch_stop_signals():
    """Turns each stop signal into SystemExit(128 + N)."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, _exit_on)


def run(tool, main, report_with):
    """main()'s exit status, with the stop signals caught and a crash
    reported as exit 2. tool: the name messages start with; report_with:
    what a bug report should include ('the two input files')."""
    catch_stop_signals()
    try:
        return main()
    except Exception:  # noqa: BLE001 - a bug must not pass for a verdict
        traceback.print_exc()
        print("%s: internal error (a bug in %s, not a regression); please report "
              "it with %s" % (tool, tool, report_with), file=sys.stderr)
        return EXIT_BAD_INPUT
