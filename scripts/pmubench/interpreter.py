"""Runs a pmubench tool under a Python that has the modules it needs.

    from pmubench import interpreter
    interpreter.ensure("plot.py", interpreter.REPORT_NEEDS)
    ... the tool's other imports ...

Every entry point calls ensure() before importing anything that needs more
than the standard library: reports/plot.py, scripts/merge.py and each
module meant for `python3 -m pmubench....` (scripts/compare.py has the
same rule written out at its top). The `python3` on PATH may be a pyenv or
venv interpreter without numpy, scipy or matplotlib, which Debian's
/usr/bin/python3 has (python3-numpy, python3-scipy, python3-matplotlib).
When one is missing, ensure() runs the same command again under
/usr/bin/python3, once (PMUBENCH_REEXEC marks the second run); when that is
not possible, or did not help, it prints which modules are missing and
what to install, and exits 2, before the tool reads or writes anything.

Standard library only, and no syntax newer than Python 3.6: it runs under
whatever `python3` the user has.
"""

import importlib
import os
import sys

DEBIAN_PYTHON = "/usr/bin/python3"
REEXEC_ENV = "PMUBENCH_REEXEC"
EXIT_BAD_INPUT = 2

# What the report (reports/plot.py, pmubench.report) imports beyond the
# standard library; it uses scripts/compare.py's statistics too.
REPORT_NEEDS = ("numpy", "scipy", "matplotlib")
# The Debian package of each module.
PACKAGES = {"numpy": "python3-numpy", "scipy": "python3-scipy",
            "matplotlib": "python3-matplotlib"}


def missing(modules):
    """The modules of `modules` that this interpreter cannot import."""
    result = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            result.append(name)
    return result


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


def ensure(tool, needs):
    """Returns when every module of `needs` imports here; otherwise re-runs
    the program under /usr/bin/python3 (once), or prints what to install
    and exits 2. tool: the name error messages start with."""
    lacking = missing(needs)
    if not lacking:
        # The tool's own children (none today) start from a clean slate.
        os.environ.pop(REEXEC_ENV, None)
        return
    if (os.path.exists(DEBIAN_PYTHON) and not os.environ.get(REEXEC_ENV)
            and not _is(DEBIAN_PYTHON)):
        os.environ[REEXEC_ENV] = "1"
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(DEBIAN_PYTHON, command(DEBIAN_PYTHON))
    version = "%d.%d.%d" % sys.version_info[:3]
    packages = " ".join(PACKAGES.get(name, name) for name in lacking)
    rerun = os.environ.get(REEXEC_ENV) and _runs(DEBIAN_PYTHON)
    tried = (" (it re-ran itself under %s, which lacks them too)" % DEBIAN_PYTHON
             if rerun else "")
    sys.stderr.write(
        "%s: error: %s (Python %s) cannot import %s%s; install them "
        "(apt-get install %s) and run with %s\n"
        % (tool, sys.executable, version, ", ".join(lacking), tried, packages,
           DEBIAN_PYTHON))
    sys.exit(EXIT_BAD_INPUT)
