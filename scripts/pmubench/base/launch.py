"""The one launch rule of every pmubench entry point.

    from pmubench.base import launch
    launch.ensure("plot.py", launch.REPORT_NEEDS)
    ... the tool's other imports ...

Every entry point starts this way, before it imports anything that needs
more than the standard library: scripts/compare.py, scripts/merge.py,
scripts/history.py, scripts/convert, scripts/pmu-vm, scripts/test,
reports/plot.py and each
module meant for `python3 -m pmubench....` (tests/python/test_launch.py
checks each). Where the package is: beside each entry point, as its
directory is sys.path[0] (scripts/pmubench; reports/pmubench links to it);
no code edits sys.path.

The `python3` on PATH may be a pyenv or venv interpreter without numpy,
scipy or matplotlib, or one older than the tools need; Debian's
/usr/bin/python3 has them (python3-numpy, python3-scipy,
python3-matplotlib). Then ensure() runs the same command again under
/usr/bin/python3, once (PMUBENCH_REEXEC marks the second run); when that is
not possible, or did not help, it prints what is missing and what to
install, and exits 2 (EXIT_BAD_INPUT), before the tool reads or writes
anything.

Standard library only, and no syntax newer than Python 3.6: it runs under
whatever `python3` the user has.
"""

import importlib.util
import os
import sys

from pmubench.base.exits import EXIT_BAD_INPUT

DEBIAN_PYTHON = "/usr/bin/python3"
REEXEC_ENV = "PMUBENCH_REEXEC"
# The oldest Python the tools run under (Debian 12 has 3.11).
OLDEST = (3, 9)

# What each tool imports beyond the standard library, the first missing
# module's package named first in the message.
NO_NEEDS = ()
COMPARE_NEEDS = ("scipy", "numpy")
# The report uses compare's statistics too.
REPORT_NEEDS = ("numpy", "scipy", "matplotlib")
# The results history stores runs through SQLAlchemy Core.
HISTORY_NEEDS = ("numpy", "scipy", "sqlalchemy")
# The Debian package of each module.
PACKAGES = {"numpy": "python3-numpy", "scipy": "python3-scipy",
            "matplotlib": "python3-matplotlib",
            "sqlalchemy": "python3-sqlalchemy"}


def missing(modules):
    """The modules of `modules` that this interpreter cannot import: found
    on its path, not imported (numpy and scipy cost history.py ingest,
    which uses neither, 0.05-0.1 s of CPU per command)."""
    return [name for name in modules if importlib.util.find_spec(name) is None]


def _runs(target):
    """True when this process's interpreter binary is `target`'s."""
    try:
        return os.path.samefile(sys.executable, target)
    except OSError:
        return False


def _is(target):
    """True when this process already runs `target` itself (a venv made
    from it has its own prefix and packages, so it is not)."""
    return _runs(target) and sys.prefix == sys.base_prefix


def command(target):
    """The argv that runs this program again under `target`: the script
    by its absolute path, or `-m MODULE` for a module run with -m."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name and spec.name != "__main__":
        return [target, "-m", spec.name] + sys.argv[1:]
    return [target, os.path.abspath(sys.argv[0])] + sys.argv[1:]


def _problem(needs):
    """What this interpreter lacks to run a tool needing `needs`, as
    (text for the message, Debian packages to install); (None, None) when
    nothing."""
    if sys.version_info[:2] < OLDEST:
        return ("is too old (%d.%d or newer)" % OLDEST, None)
    lacking = missing(needs)
    if not lacking:
        return (None, None)
    return ("cannot import " + ", ".join(lacking),
            " ".join(PACKAGES.get(name, name) for name in lacking))


def ensure(tool, needs=NO_NEEDS):
    """Returns when this interpreter is new enough and every module of
    `needs` imports here; otherwise re-runs the program under
    /usr/bin/python3 (once), or prints what to install and exits 2.
    tool: the name error messages start with."""
    problem, packages = _problem(needs)
    if problem is None:
        # The tool's own children start from a clean slate.
        os.environ.pop(REEXEC_ENV, None)
        return
    if (os.path.exists(DEBIAN_PYTHON) and not os.environ.get(REEXEC_ENV)
            and not _is(DEBIAN_PYTHON)):
        os.environ[REEXEC_ENV] = "1"
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(DEBIAN_PYTHON, command(DEBIAN_PYTHON))
    version = "%d.%d.%d" % sys.version_info[:3]
    rerun = os.environ.get(REEXEC_ENV) and _runs(DEBIAN_PYTHON)
    tried = (" (it re-ran itself under %s, which lacks them too)" % DEBIAN_PYTHON
             if rerun else "")
    install = ("install them (apt-get install %s) and " % packages
               if packages else "")
    sys.stderr.write("%s: error: %s (Python %s) %s%s; %srun with %s\n"
                     % (tool, sys.executable, version, problem, tried, install,
                        DEBIAN_PYTHON))
    sys.exit(EXIT_BAD_INPUT)
