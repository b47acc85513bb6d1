"""scripts/history.py's command line: argparse over the package's
functions. Exit status: 0 done (judge: no regression), 1 judge found a
regression, 2 bad input or usage (a message naming the input and the fix,
before anything is written), 4 judge could judge nothing."""

from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
import time

from pmubench.runs import benchjson
from pmubench.history import ingest, layout, output, pg_direct, place, sqlite_direct

from pmubench.base.terminal import printable
from pmubench.base.exits import EXIT_BAD_INPUT  # noqa: F401 (history.py uses it too)
PROG = "history.py"


def say(text: str, file=None) -> None:  # noqa: ANN001 - a text stream
    """Prints one line for the terminal: every line history.py prints goes
    through here, so a name's control characters are shown escaped and
    can never forge a line (pmubench.base.terminal)."""
    print(printable(text), file=file or sys.stdout)


def say_text(text: str) -> None:
    """Prints a text history/output.py rendered (its lines escaped there)."""
    sys.stdout.write(text)


class UsageError(Exception):
    """Bad command-line input; the message names it and the fix."""


def _db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", required=True,
                        help="a SQLite file (PATH) or a PostgreSQL server "
                             "(postgresql://USER@HOST/DB; password from the URL or PGPASSWORD)")


def _detector(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--branch", default="main", help="the branch (default main)")
    parser.add_argument("--window", type=int, default=30,
                        help="E-divisive window in commits (default 30)")
    parser.add_argument("--max-pvalue", type=float, default=0.001,
                        help="largest p-value of a change point (default 0.001)")
    parser.add_argument("--min-magnitude", type=float, default=0.0,
                        help="smallest relative change of a noisy series' change "
                             "point (default 0: any significant one)")
    parser.add_argument("--faithful", action="store_true",
                        help="the reference method (Otava's answers): no spikes, "
                             "no robust re-test")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=(
        "Keep every run of a branch, find change points per series, judge a run "
        "against the history, and write a trend report (docs/history.md)."))
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    p = verbs.add_parser("ingest", help="add run files (Google Benchmark JSON)")
    _db(p)
    p.add_argument("--commit", help="the run's commit (default: HEAD of this checkout)")
    p.add_argument("--branch", help="its branch (default: this checkout's, else main)")
    p.add_argument("--machine", help="name of the machine identity (default: made "
                                     "from its facts)")
    p.add_argument("--time", help="the commit's time, ISO 8601 (default: the run's "
                                  "context.date)")
    p.add_argument("runs", nargs="+", metavar="RUN.json")
    p = verbs.add_parser("detect", help="list the change points of every series")
    _db(p)
    _detector(p)
    p.add_argument("--since", help="only change points at or after this time (ISO 8601)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p = verbs.add_parser("judge", help="judge a run against the branch's history")
    _db(p)
    _detector(p)
    p.add_argument("--machine", help="the machine name, when one identity has several")
    p.add_argument("--threshold", action="append", default=[], metavar="METRIC=PCT",
                   help="compare.py's rule: a metric, pattern, 'time' or 'default' and "
                        "its percentage or 'off' (repeatable; defaults: compare.py --help)")
    p.add_argument("--alpha", type=float, default=0.01,
                   help="significance of a noisy metric's change (default 0.01)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("head", metavar="HEAD.json")
    p = verbs.add_parser("report", help="write the trend report DIR/index.html")
    _db(p)
    _detector(p)
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.add_argument("--repo", metavar="DIR",
                   help="the git checkout whose log gives the commits' subjects on the "
                        "charts (default: the current directory, when it is one)")
    p = verbs.add_parser("ack", help="mark a change point as expected")
    _db(p)
    _detector(p)  # the change points the commit must be one of
    for flag in ("--machine", "--benchmark", "--metric", "--commit", "--note"):
        p.add_argument(flag, required=True)
    p = verbs.add_parser("exclude", help="drop a bad run from detection, with a reason")
    _db(p)
    p.add_argument("--run", type=int, help="the run id (detect --format json, report)")
    p.add_argument("--commit", help="every run at this commit")
    p.add_argument("--reason", required=True)
    _compact_parser(verbs)
    p = verbs.add_parser("upgrade", help="bring a database to this tool's schema version")
    _db(p)
    return parser


def _compact_parser(verbs) -> None:  # noqa: ANN001 - argparse's subparsers
    p = verbs.add_parser("compact", help="reduce the repetitions of old commits to their "
                                         "median (the size plan: docs/history.md)")
    _db(p)
    p.add_argument("--keep-commits", type=int, required=True, metavar="N",
                   help="the newest N commits of each branch keep every repetition; runs "
                        "at older commits keep their median per series")


def check_args(args: argparse.Namespace) -> None:
    if getattr(args, "window", 30) < 4:
        raise UsageError(f"--window {args.window}: must be at least 4 commits")
    if not 0 < getattr(args, "max_pvalue", 0.5) < 1:
        raise UsageError(f"--max-pvalue {args.max_pvalue}: must be between 0 and 1")
    if args.verb == "judge" and not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha}: must be between 0 and 1")
    if args.verb == "compact" and args.keep_commits < 0:
        raise UsageError(f"--keep-commits {args.keep_commits}: must be 0 or more (the newest "
                         "commits that keep every repetition)")
    if args.verb == "exclude" and (args.run is None) == (args.commit is None):
        raise UsageError("exclude: give exactly one of --run ID and --commit SHA")
    if getattr(args, "run", None) is not None and not 0 < args.run <= MAX_RUN_ID:
        raise UsageError(f"--run {args.run}: no run has that id (ids run from 1 to "
                         f"{MAX_RUN_ID}); `detect --format json` and the report name the runs")
    _check_texts(args)


# The largest id a run can have: PostgreSQL's INTEGER, which SQLite's holds.
MAX_RUN_ID = 2**31 - 1


def _check_texts(args: argparse.Namespace) -> None:
    """Every text argument is Unicode (a byte that is not UTF-8 comes in as
    a lone surrogate, which no database stores); names fit the history."""
    for key, value in vars(args).items():
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise UsageError(f"--{key.replace('_', '-')} {ascii(value)[:80]}: not "
                                 "UTF-8 text; give it in UTF-8") from None
    if getattr(args, "branch", None):
        ingest.check_name(args.branch, "--branch")
    if args.verb == "ingest" and args.machine:
        # room for the "-" and 8 digits a name other facts hold gets
        if len(args.machine) > layout.MAX_NAME - 9:
            raise UsageError(f"--machine {ascii(args.machine[:60])}...: more than "
                             f"{layout.MAX_NAME - 9} characters; give a shorter name")


# detect, judge and the verdicts import numpy's and scipy's statistics
# (0.6 s CPU): the verbs that need them import them, so ingest starts
# without (docs/history.md, Measured).


def params_of(args: argparse.Namespace) -> detect.Params:
    from pmubench.history import detect
    return detect.Params(args.window, args.max_pvalue, args.min_magnitude, args.faithful)


def open_store(db: str, create: bool = False):  # noqa: ANN201 - SQLAlchemy's Engine
    """store.open_store, imported by the verbs that read through SQLAlchemy:
    an ingest into SQLite needs none (its import: 0.13 s of CPU)."""
    from pmubench.history import store
    return store.open_store(db, create)


def _commit_and_branch(args: argparse.Namespace) -> tuple[str, str]:
    if args.commit:
        commit = ingest.check_commit(args.commit)
        checkout = ingest.git_checkout() if not args.branch else None
        return commit, args.branch or (checkout[1] if checkout and checkout[1] else "main")
    checkout = ingest.git_checkout()
    if checkout is None:
        raise UsageError(f"{os.getcwd()}: not in a git checkout, so the run's commit is "
                         "unknown; give --commit SHA (and --branch NAME), or run "
                         "history.py inside the checkout that was measured")
    if not checkout[1] and not args.branch:
        raise UsageError(f"the checkout's HEAD {checkout[0][:12]} is detached; give "
                         "--branch NAME")
    return checkout[0], args.branch or checkout[1]


def cmd_ingest(args: argparse.Namespace) -> int:
    # Python's cycle collector walked every parsed run and sample row again
    # and again: 0.18 s of a 1.85 s 5-run ingest (gc.callbacks). The
    # command's objects are freed by their counts; a cycle waits for exit.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _ingest(args)
    finally:
        if was_enabled:
            gc.enable()


def _ingest(args: argparse.Namespace) -> int:
    prepared = [ingest.prepare(path) for path in args.runs]
    commit, branch = _commit_and_branch(args)
    ingest.check_name(branch, "the branch")
    forced = ingest.parse_time(args.time, "--time") if args.time else None
    for p in prepared:
        if forced is None and p.time is None:
            raise UsageError(f"{p.path}: has no context.date; give --time ISO-8601")
    # the driver alone, no SQLAlchemy to import; a server psycopg2 cannot
    # open is store.open_store's to open, or to say why not
    conn = pg_direct.open_for_ingest(args.db) if place.is_server(args.db) else \
        sqlite_direct.open_for_ingest(args.db)
    if conn is None:
        write = functools.partial(ingest.write, open_store(args.db, create=True))
    else:
        write = functools.partial(ingest.write_direct, conn)
    known: dict = {}  # the series ids of the runs written
    for p in prepared:
        run = write(p, commit, branch, forced or p.time, args.machine, known)
        say_text(output.ingested(p, run, args.db, commit, branch))
    return 0


def cmd_detect(args: argparse.Namespace) -> int:
    from pmubench.history import detect
    since = ingest.parse_time(args.since, "--since") if args.since else None
    engine = open_store(args.db)
    refreshed = detect.refresh(engine, args.branch, params_of(args))
    from pmubench.history import store
    with engine.connect() as conn:
        notes = store.acked(conn)
    changes = [c for c in refreshed.changes() if since is None or c.time >= since]
    if args.format == "json":
        sys.stdout.write(output.detect_json(args.branch, refreshed, changes, notes))
    else:
        say_text(output.detect_text(args.branch, refreshed, changes, notes))
    return 0


def _overrides(args: argparse.Namespace, head: ingest.Prepared) -> list[thresholds.Override]:
    """The --threshold rules, checked as compare.py checks them."""
    from pmubench.verdicts import gates, thresholds
    try:
        overrides = [thresholds.parse_override(t) for t in args.threshold]
    except thresholds.ThresholdError as e:
        raise UsageError(str(e)) from None
    names = list(dict.fromkeys(m for _, m in head.values))
    gates.check_selectors(overrides, None, names, args.head, place.shown(args.db))
    return overrides


def cmd_judge(args: argparse.Namespace) -> int:
    from pmubench.history import judge
    head = ingest.prepare(args.head)
    overrides = _overrides(args, head)
    engine = open_store(args.db)
    judged = judge.judge(engine, args.branch, params_of(args), head, args.machine,
                         overrides, args.alpha)
    code = judge.exit_code(judged.rows)
    if args.format == "json":
        sys.stdout.write(output.judge_json(judged, code))
        return code
    if not judged.machine:
        say_text(output.no_machine(args.head, place.shown(args.db), args.machine,
                                           args.branch, judged.nearest))
        return code
    say_text(output.judge_text(judged, code, args.head, args.branch))
    return code


def _series_id(conn, args: argparse.Namespace) -> int:  # noqa: ANN001
    from sqlalchemy import and_, select

    from pmubench.history import schema
    s, m = schema.series, schema.machines
    row = conn.execute(select(s.c.id).select_from(s.join(m, s.c.machine_id == m.c.id))
                       .where(and_(m.c.name == args.machine, s.c.benchmark == args.benchmark,
                                   s.c.metric == args.metric))).first()
    if row is None:
        raise UsageError(f"no series {args.machine} / {args.benchmark} / {args.metric} in "
                         f"{place.shown(args.db)}; copy the names from `detect`")
    return row[0]


def _full_commit(conn, prefix: str) -> str:  # noqa: ANN001
    from sqlalchemy import select

    from pmubench.history import schema
    r = schema.runs
    prefix = ingest.check_commit(prefix)
    found = {c for (c,) in conn.execute(select(r.c.commit_sha)
                                        .where(r.c.commit_sha.like(prefix + "%")))}
    if len(found) != 1:
        raise UsageError(f"--commit {prefix}: " + ("no run has it" if not found else
                         f"matches {len(found)} commits") + "; give the commit from `detect`")
    return found.pop()


def _check_change_point(engine, args: argparse.Namespace, sid: int, commit: str) -> None:  # noqa: ANN001
    """Refuses a commit that is not a change point of the series (detect's,
    with the same branch and detector settings)."""
    from pmubench.history import detect
    points = [c.commit for c in detect.refresh(engine, args.branch, params_of(args)).changes()
              if c.key.id == sid]
    if commit not in points:
        where = ("its change points are at " + ", ".join(c[:12] for c in points)
                 if points else "it has no change point")
        raise UsageError(f"--commit {commit[:12]}: not a change point of {args.benchmark} "
                         f"{args.metric} on {args.machine} ({args.branch}): {where}; "
                         "acknowledge a commit `detect` lists")


def cmd_ack(args: argparse.Namespace) -> int:
    if not args.note.strip():
        raise UsageError("--note is empty; say why the change is expected "
                         "(--note \"new allocator\")")
    engine = open_store(args.db)
    with engine.connect() as conn:
        sid = _series_id(conn, args)
        commit = _full_commit(conn, args.commit)
    _check_change_point(engine, args, sid, commit)
    from sqlalchemy import and_

    from pmubench.history import schema
    with engine.begin() as conn:
        a = schema.acks
        conn.execute(a.delete().where(and_(a.c.series_id == sid, a.c.commit_sha == commit)))
        conn.execute(a.insert().values(series_id=sid, commit_sha=commit, note=args.note,
                                       time=time.time()))
    say_text(output.acknowledged(args.benchmark, args.metric, commit))
    return 0


def cmd_exclude(args: argparse.Namespace) -> int:
    from sqlalchemy import update

    from pmubench.history import detect, schema
    engine = open_store(args.db)
    r = schema.runs
    with engine.begin() as conn:
        where = r.c.id == args.run if args.run is not None else \
            r.c.commit_sha == _full_commit(conn, args.commit)
        done = conn.execute(update(r).where(where).values(excluded=args.reason))
        if done.rowcount == 0:
            raise UsageError(f"--run {args.run}: no such run in {place.shown(args.db)}; "
                             "`detect --format json` and the report name the runs")
        detect.bump_generation(conn)
    say_text(output.excluded(done.rowcount, args.reason))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from pmubench.history import commits, report  # matplotlib is not needed elsewhere
    if args.repo is not None and not commits.is_checkout(args.repo):
        raise UsageError(f"--repo {args.repo}: not a git checkout; give the directory of "
                         "the repository the history measured, or leave --repo out")
    engine = open_store(args.db)
    pages = report.write_report(engine, args.branch, params_of(args), args.output,
                                args.repo or ".")
    say_text(output.reported(args.output, pages))
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    from pmubench.history import compact
    engine = open_store(args.db)
    size = store_size(args.db)
    done = compact.compact(engine, args.keep_commits)
    say_text(output.compacted(done, place.shown(args.db), size, store_size(args.db)))
    return 0


def store_size(db: str) -> int | None:
    """The SQLite file's bytes (None for a server)."""
    return None if place.is_server(db) else os.path.getsize(db)


def cmd_upgrade(args: argparse.Namespace) -> int:
    from pmubench.history import store
    start, end = store.upgrade(args.db)
    say_text(output.upgraded(place.shown(args.db), start, end))
    return 0


COMMANDS = {"ingest": cmd_ingest, "detect": cmd_detect, "judge": cmd_judge,
            "report": cmd_report, "ack": cmd_ack, "exclude": cmd_exclude,
            "compact": cmd_compact, "upgrade": cmd_upgrade}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        check_args(args)
        return COMMANDS[args.verb](args)
    except (UsageError, benchjson.BadInput, place.StoreError) as e:
        say(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as e:  # noqa: BLE001 - a database's own error is told, not a bug
        if not place.is_database_error(e):
            raise
        say(f"{PROG}: error: " + (place.busy(args.db, e) or
              f"{place.shown(args.db)}: {place.reason_of(args.db, e)}; nothing was "
              "written (the transaction rolled back); check the database and run again"),
              file=sys.stderr)
        return EXIT_BAD_INPUT
