#!/usr/bin/env python3
"""bench/e2e/sweep.py - the one-node scale sweep: N = 2, 16, 64, 256, 1024 processes under our
pmixrun and under pmixrun-openpmix (same launcher source, Debian's OpenPMIx 4.2.2), and with
--baseline under an earlier build of ours, alternating run by run in one invocation.

Per N, library and repetition, two jobs:
  launch:   `pmixrun -n N putget` (examples/putget.c: Init, Put 2 keys, Commit, Fence with data,
            Get every peer's 2 keys, Finalize); its wall time from starting pmixrun to its exit;
  scenario: `pmixrun -n N bench-scenario K LOOPS PEERS` (scenario.c), per rank: PMIx_Init, Commit
            and Fence with data of the first modex, the modex cycle (Put + Commit + Fence with data
            + Get, steady state), the first Get of a peer's key right after a collecting fence
            and the same Get again (warm), PMIx_Finalize, Pss.
A job that fails or passes --timeout is a result, not an error: its cells say how it ended (for
instance "74/1024 checked, exit 1 after 23 s"); after a failure that job is not repeated at that
N, and larger N are tried once. Statistics: launch wall over the repetitions; phases over every
rank of every finished repetition (median and max). Ratios: OpenPMIx median / ours (> 1: we are
faster) and ours / baseline (< 1: this build is faster).

The baseline runs its own pmixrun and libpmix (LD_LIBRARY_PATH=<baseline>/../lib) with this
build's putget and bench-scenario (an earlier bench-scenario may lack phases); every scenario run
reports the libpmix it loaded, and the sweep stops if a baseline run did not load the baseline's.
Progress on stderr; report (Markdown) on stdout and to --out, plot (log-log) to --png."""
import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import LINE, fmt  # noqa: E402  (bench/e2e/run.py: the BENCH line, number format)

# (field, label, unit); "launch_ms" comes from the launch job, the rest from the scenario's ranks.
PHASES = [
    ("launch_ms", "Launch wall: pmixrun -n N putget, start to exit", "ms"),
    ("init", "PMIx_Init", "us"),
    ("commit", "Commit (first modex, 4 keys of 64 B)", "us"),
    ("fence", "Fence with data (first modex, between barriers)", "us"),
    ("fenceloop", "Modex cycle: Put + Commit + Fence(data) + Get, steady state", "us"),
    ("getfirst", "First Get of a peer's key after a collecting fence", "us"),
    ("getwarm", "The same Get again (warm)", "us"),
    ("getold", "First Get after a fence of a key read before (waking up, no new data)", "us"),
    ("finalize", "PMIx_Finalize", "us"),
    ("pss_kb", "Pss per process", "KiB"),
    ("scenario_ms", "Scenario job wall (pmixrun start to exit)", "ms"),
]
LIB_TITLES = {"ours": "ours", "baseline": "baseline", "openpmix": "OpenPMIx"}


def raise_limits(max_n):
    """1,024 ranks: pmixrun holds a socket and three pipes per rank and every process runs a
    progress thread. Soft limits go up to what is needed (within the hard limit; root may raise
    that too); returns a line for the report."""
    wants = {resource.RLIMIT_NOFILE: 8 * max_n + 1024, resource.RLIMIT_NPROC: 8 * max_n + 4096}
    notes = []
    for which, name in ((resource.RLIMIT_NOFILE, "nofile"), (resource.RLIMIT_NPROC, "nproc")):
        soft, hard = resource.getrlimit(which)
        want = wants[which]
        if soft != resource.RLIM_INFINITY and soft < want:
            new_hard = hard if hard == resource.RLIM_INFINITY or hard >= want else want
            try:
                resource.setrlimit(which, (want, new_hard))
            except (ValueError, OSError) as e:
                print(f"sweep.py: cannot raise {name} to {want}: {e}", file=sys.stderr)
        soft, hard = resource.getrlimit(which)
        shown = "unlimited" if soft == resource.RLIM_INFINITY else str(soft)
        notes.append(f"{name} {shown} (wanted >= {want})")
    with open("/proc/sys/kernel/pid_max") as f:
        notes.append(f"pid_max {f.read().strip()}")
    return ", ".join(notes)


class Job:
    """One pmixrun invocation and how it ended."""

    def __init__(self, ok, wall, rows, reported, detail, libpath=None, last_error=""):
        self.ok, self.wall, self.rows, self.reported = ok, wall, rows, reported
        self.detail, self.libpath, self.last_error = detail, libpath, last_error


def run_job(cmd, env, n, timeout, done_word, count_line):
    """Runs cmd in its own process group, killing the group if pmixrun outlives its --timeout."""
    started = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout + 15)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = None
    except BaseException:  # Ctrl-C or SIGTERM (see main): the job's own session would survive us
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    wall = time.monotonic() - started
    rows, reported, libpath = [], 0, None
    for line in out.splitlines():
        m = LINE.search(line)
        if m:
            rows.append({k: float(v) for k, v in (f.split("=") for f in m.group(1).split())})
        if count_line(line):
            reported += 1
        if "BENCHLIB " in line:
            libpath = line.split("BENCHLIB ", 1)[1].strip()
    ok = rc == 0 and reported == n
    how = "killed" if rc is None else ("timed out (exit 124)" if rc == 124 else f"exit {rc}")
    detail = "" if ok else f"{reported}/{n} {done_word}, {how} after {wall:.0f} s"
    last_error = err.strip().splitlines()[-1][:200] if not ok and err.strip() else ""
    return Job(ok, wall, rows, reported, detail, libpath, last_error)


class Library:
    def __init__(self, name, launcher, putget, scenario, libdir):
        self.name, self.launcher, self.putget, self.scenario = name, launcher, putget, scenario
        self.libdir = libdir  # LD_LIBRARY_PATH for the baseline; None: the binaries' RUNPATH

    def env(self):
        env = dict(os.environ)
        env.pop("LD_LIBRARY_PATH", None)
        if self.libdir:
            env["LD_LIBRARY_PATH"] = self.libdir
        return env


def libraries(args):
    b = args.bindir
    libs = [Library("ours", f"{b}/pmixrun", f"{b}/putget", f"{b}/bench-scenario", None)]
    if args.baseline:
        libdir = args.baseline_libdir or os.path.join(args.baseline, "..", "lib")
        libs.append(Library("baseline", f"{args.baseline}/pmixrun", f"{b}/putget",
                            f"{b}/bench-scenario", os.path.realpath(libdir)))
    if not args.ours_only:
        libs.append(Library("openpmix", f"{b}/pmixrun-openpmix", f"{b}/putget-openpmix",
                            f"{b}/bench-scenario-openpmix", None))
    for lib in libs:
        for exe in (lib.launcher, lib.putget, lib.scenario):
            if not os.access(exe, os.X_OK):
                sys.exit(f"sweep.py: {exe} missing (build pmixrun, putget, bench-scenario and "
                         "their -openpmix twins)")
    return libs


def launch_job(lib, n, args):
    cmd = [lib.launcher, "-n", str(n), "--timeout", str(args.timeout), lib.putget]
    return run_job(cmd, lib.env(), n, args.timeout, "checked",
                   lambda line: f"checked 2 keys of {n}/{n} ranks" in line)


def scenario_job(lib, n, args):
    cmd = [lib.launcher, "-n", str(n), "--timeout", str(args.timeout), lib.scenario,
           str(args.keys), str(args.loops), str(args.peers)]
    job = run_job(cmd, lib.env(), n, args.timeout, "finalized",
                  lambda line: LINE.search(line) is not None)
    if lib.libdir and job.libpath and not os.path.realpath(job.libpath).startswith(lib.libdir):
        sys.exit(f"sweep.py: the baseline run loaded {job.libpath}, not a library of "
                 f"{lib.libdir}; check --baseline / --baseline-libdir")
    return job


class Cell:
    """Every job of one (library, N, kind)."""

    def __init__(self):
        self.jobs = []

    def finished(self):
        return [j for j in self.jobs if j.ok]

    def failed(self):
        return [j for j in self.jobs if not j.ok]


def sweep(libs, ns, args):
    """Runs every job; returns {(lib, n, kind): Cell}, the libpmix each library loaded and the
    load average (1 min) when each N began."""
    cells, failed_at, libpaths, loads = {}, set(), {}, {}
    started = time.monotonic()
    for n in ns:
        loads[n] = os.getloadavg()[0]
        for rep in range(args.reps):
            for lib in libs:
                for kind, runner in (("launch", launch_job), ("scenario", scenario_job)):
                    cell = cells.setdefault((lib.name, n, kind), Cell())
                    if cell.failed() or (rep > 0 and (lib.name, kind) in failed_at):
                        continue  # not repeated after a failure (here, or at a smaller N)
                    print(f"sweep.py: [{time.monotonic() - started:5.0f} s] N={n} rep "
                          f"{rep + 1}/{args.reps} {lib.name} {kind} ...", file=sys.stderr,
                          end="", flush=True)
                    job = runner(lib, n, args)
                    cell.jobs.append(job)
                    if job.libpath:
                        libpaths.setdefault(lib.name, job.libpath)
                    if not job.ok:
                        failed_at.add((lib.name, kind))
                    print(f" {job.wall:.2f} s" if job.ok else f" FAILED ({job.detail}) {job.last_error}",
                          file=sys.stderr)
    return cells, libpaths, loads


def values(cells, lib, n, field):
    """The samples of one phase: launch wall per finished launch job (ms), scenario wall per
    finished scenario job (ms), or every rank of every finished scenario job."""
    if field == "launch_ms":
        return [j.wall * 1e3 for j in cells[(lib, n, "launch")].finished()]
    if field == "scenario_ms":
        return [j.wall * 1e3 for j in cells[(lib, n, "scenario")].finished()]
    return [r[field] for j in cells[(lib, n, "scenario")].finished() for r in j.rows]


def median_max(cells, lib, n, field):
    v = values(cells, lib, n, field)
    return (statistics.median(v), max(v)) if v else (None, None)


def failure_text(cells, lib, n, field):
    kind = "launch" if field == "launch_ms" else "scenario"
    bad = cells[(lib, n, kind)].failed()
    if not bad:
        return "-"
    return f"**failed**: {bad[0].detail}" if field in ("launch_ms", "init") else "failed"


def status_cell(cells, lib, n):
    parts = []
    for kind in ("launch", "scenario"):
        c = cells[(lib, n, kind)]
        parts.append(f"{len(c.finished())}/{len(c.jobs)}")
    return ", ".join(parts)


def ratio(num, den, digits):
    return f"{num / den:,.{digits}f}" if num is not None and den else "-"


def table(cells, libs, n, load):
    names = [lib.name for lib in libs]
    head = "| phase | unit |" + "".join(f" {LIB_TITLES[x]} median | {LIB_TITLES[x]} max |"
                                         for x in names)
    extra = (["OpenPMIx / ours"] if "openpmix" in names else []) + \
            (["ours / baseline"] if "baseline" in names else [])
    head += "".join(f" {e} |" for e in extra)
    out = [f"### N = {n} (load average {load:.1f} when it began)", "", head, "|---|---|" + "---:|" * (2 * len(names) + len(extra))]
    status = "| jobs finished (launch, scenario) | |" + "".join(
        f" {status_cell(cells, x, n)} | |" for x in names) + " |" * len(extra)
    out.append(status)
    for field, label, unit in PHASES:
        row = f"| {label} | {unit} |"
        meds = {}
        for x in names:
            med, mx = median_max(cells, x, n, field)
            meds[x] = med
            if med is None:
                row += f" {failure_text(cells, x, n, field)} | |"
            else:
                row += f" {fmt(med, unit)} | {fmt(mx, unit)} |"
        if "openpmix" in names:
            row += f" {ratio(meds['openpmix'], meds['ours'], 1)} |"
        if "baseline" in names:
            row += f" {ratio(meds['ours'], meds.get('baseline'), 2)} |"
        out.append(row)
    return "\n".join(out)


def summary(cells, lib, ns):
    """One library's medians, phases by N (compact, for the README)."""
    out = [f"### {LIB_TITLES[lib]}: medians by N", "",
           "| phase | unit |" + "".join(f" N = {n} |" for n in ns),
           "|---|---|" + "---:|" * len(ns)]
    for field, label, unit in PHASES:
        row = f"| {label} | {unit} |"
        for n in ns:
            med, _ = median_max(cells, lib, n, field)
            row += f" {fmt(med, unit)} |" if med is not None else " failed |"
        out.append(row)
    return "\n".join(out)


def plot(path, cells, libs, ns):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("sweep.py: matplotlib not available, no PNG", file=sys.stderr)
        return
    styles = {"ours": ("o-", "PMIx-C++"), "baseline": ("^:", "PMIx-C++ baseline"),
              "openpmix": ("s--", "OpenPMIx 4.2.2")}
    fig, axes = plt.subplots(2, 5, figsize=(20, 7.5))
    for ax, (field, label, unit) in zip(axes.flat, PHASES):
        for lib in libs:
            xs = [n for n in ns if median_max(cells, lib.name, n, field)[0] is not None]
            ys = [median_max(cells, lib.name, n, field)[0] for n in xs]
            style, name = styles[lib.name]
            lost = [n for n in ns if n not in xs]
            ax.plot(xs, ys, style, label=name + (f" (failed at N={','.join(map(str, lost))})"
                                                   if lost else ""))
        ax.set_title(label, fontsize=8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("processes on one node")
        ax.set_ylabel(f"{unit} (median)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    print(f"sweep.py: plot written to {path}", file=sys.stderr)


def report(cells, libs, ns, args, limits, sweep_out, load_before, took):
    _, libpaths, loads = sweep_out
    host = os.uname()
    load_after = os.getloadavg()
    head = [f"# One-node scale sweep: PMIx-C++ vs OpenPMIx 4.2.2 ({time.strftime('%Y-%m-%d %H:%M')})",
            "",
            f"Machine: {host.nodename} {host.release}, {os.cpu_count()} CPUs; load average "
            f"{load_before[0]:.1f} before, {load_after[0]:.1f} after (1 min); {took:.0f} s in all. "
            f"Limits: {limits}.",
            "",
            f"{args.reps} repetition(s) per N and library, alternating; per-job timeout "
            f"{args.timeout} s. Launch wall: `pmixrun -n N putget`, one sample per job. Phases: "
            f"`bench-scenario {args.keys} {args.loops} {args.peers}` (bench/e2e/scenario.c; "
            f"{args.loops} modex cycles, peer Gets capped at {args.peers} peers), median and max "
            "over every rank of every finished job; first/warm Get: each rank's median over its "
            "modex cycles. A failed job's cells say how it ended; it is not repeated at that N. "
            "Jobs finished: launch, scenario (finished/started).",
            ""]
    for lib in libs:
        head.append(f"- {LIB_TITLES[lib.name]}: `{lib.launcher}`, libpmix "
                    f"`{libpaths.get(lib.name, '?')}`")
    body = [summary(cells, lib.name, ns) + "\n" for lib in libs]
    body += [table(cells, libs, n, loads[n]) + "\n" for n in ns]
    failed = [(key, j) for key, c in cells.items() for j in c.failed()]
    if failed:
        body.append("### Failed jobs (the last line each wrote to stderr)\n")
        for (lib, n, kind), j in failed:
            said = (j.last_error or "-").replace("`", "'")
            body.append(f"- {LIB_TITLES[lib]}, N = {n}, {kind}: {j.detail}; `{said}`")
    return "\n".join(head + [""] + body)


def complete(cells, libs, ns):
    """--check: every row of every library at every N has a number."""
    missing = [f"{lib.name} N={n} {field}" for lib in libs for n in ns for field, _, _ in PHASES
               if median_max(cells, lib.name, n, field)[0] is None]
    for m in missing:
        print(f"sweep.py: no value for {m}", file=sys.stderr)
    return not missing


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bindir", required=True, help="pmixrun, putget, bench-scenario (+ -openpmix)")
    ap.add_argument("--n", default="2,16,64,256,1024", help="process counts (comma-separated)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per N and library")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per job (pmixrun --timeout)")
    ap.add_argument("--keys", type=int, default=100, help="job-key Gets per rank in the scenario")
    ap.add_argument("--loops", type=int, default=20, help="modex cycles per rank")
    ap.add_argument("--peers", type=int, default=16, help="peers whose keys each rank reads")
    ap.add_argument("--ours-only", action="store_true", help="skip OpenPMIx")
    ap.add_argument("--baseline", help="bindir of an earlier build of ours (its pmixrun, and its "
                    "libpmix from ../lib), run alternately with --bindir's")
    ap.add_argument("--baseline-libdir", help="the baseline's libpmix directory, if not ../lib")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every row has a number for every library and N")
    ap.add_argument("--out", help="also write the Markdown report here")
    ap.add_argument("--png", help="write the log-log plot of phase medians vs N here")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("sweep.py: terminated"))
    ns = [int(x) for x in args.n.split(",") if x]
    args.bindir = os.path.abspath(args.bindir)
    if args.baseline:
        args.baseline = os.path.abspath(args.baseline)
    libs = libraries(args)
    limits = raise_limits(max(ns))
    load_before = os.getloadavg()
    jobs = len(ns) * args.reps * len(libs) * 2
    print(f"sweep.py: {jobs} jobs at most, each under {args.timeout} s", file=sys.stderr)
    started = time.monotonic()
    sweep_out = sweep(libs, ns, args)
    cells = sweep_out[0]
    text = report(cells, libs, ns, args, limits, sweep_out, load_before, time.monotonic() - started)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.png:
        plot(args.png, cells, libs, ns)
    if args.check and not complete(cells, libs, ns):
        return 1
    ours_failed = [k for k, c in cells.items() if k[0] != "openpmix" and c.failed()]
    return 1 if ours_failed else 0


if __name__ == "__main__":
    sys.exit(main())
