#!/usr/bin/env python3
"""bench/e2e/run.py - runs the end-to-end scenario (scenario.c) on our library and on OpenPMIx
side by side and prints one Markdown table per process count.

Each run is `pmixrun -n N bench-scenario K` (ours) or `pmixrun-openpmix -n N
bench-scenario-openpmix K` (Debian's OpenPMIx 4.2.2, same launcher source), alternating the
two libraries, `--reps` times per N. Statistics pool every rank of every repetition: the median
and the maximum across processes. Ratio = OpenPMIx median / our median (> 1: we are faster).
Progress goes to stderr; the report to stdout and to --out (plus a PNG with --png when matplotlib
is available)."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

PHASES = [  # (field, label, unit)
    ("init", "PMIx_Init", "us"),
    ("sync", "Barrier after Init (absorbs launch skew)", "us"),
    ("put", "Put x4", "us"),
    ("commit", "Commit", "us"),
    ("fence", "Fence + collect (4 x 64 B), between barriers", "us"),
    ("getjob", "Get job key (per call)", "us"),
    ("getpeer", "Get peer key (per call)", "us"),
    ("getptr", "Get peer key, PMIX_GET_POINTER_VALUES (per call)", "us"),
    ("barrier", "Barrier (fence, no data), between barriers", "us"),
    ("fenceloop", "Put+Commit+Fence(data)+Get, steady state", "us"),
    ("getfirst", "First Get of a peer's key after that fence (median)", "us"),
    ("getwarm", "The same Get again, warm (median)", "us"),
    ("getold", "First Get after a fence of a key read before (waking up, no new data)", "us"),
    ("finalize", "PMIx_Finalize", "us"),
    ("pss_kb", "Pss per process", "KiB"),
    ("rss_kb", "Rss per process", "KiB"),
]
LINE = re.compile(r"BENCH (.*)$")


def run_once(launcher, program, n, keys, timeout):
    cmd = [launcher, "-n", str(n), "--timeout", str(timeout), program, str(keys)]
    started = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout + 30, stdin=subprocess.DEVNULL)
    rows = []
    for line in p.stdout.splitlines():
        m = LINE.search(line)
        if m:
            rows.append({k: float(v) for k, v in (f.split("=") for f in m.group(1).split())})
    if p.returncode != 0 or len(rows) != n:
        raise RuntimeError(f"{' '.join(cmd)} -> exit {p.returncode}, {len(rows)}/{n} ranks reported\n"
                           f"{p.stderr[-2000:]}")
    return rows, time.monotonic() - started


def fmt(x, unit):
    if x is None:
        return "-"
    if unit == "KiB":
        return f"{x:,.0f}"
    return f"{x:,.3f}" if x < 10 else f"{x:,.1f}"


def socket_floor(bindir, mode=None):
    """bench-floor's figure: one Unix-socket round trip between two processes, or (mode
    "barrier") the least a 2-client barrier through a server process costs; None if absent."""
    exe = os.path.join(bindir, "bench-floor")
    if not os.path.exists(exe):
        return None
    p = subprocess.run([exe] + ([mode] if mode else []), stdout=subprocess.PIPE, text=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    m = re.search(r"(?:roundtrip|barrier)_us=([0-9.]+)", p.stdout)
    return float(m.group(1)) if p.returncode == 0 and m else None


def stats(rows, field):
    """(median, max) of one phase over every rank of every repetition; (None, None) if no rows
    (or a --baseline scenario from before the phase existed)."""
    values = [r[field] for r in rows if field in r] if rows else []
    return (statistics.median(values), max(values)) if values else (None, None)


def table(n, ours, ref):
    out = [f"### N = {n}", "",
           "| phase | unit | ours median | ours max | OpenPMIx median | OpenPMIx max | ratio |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for field, label, unit in PHASES:
        am, ax = stats(ours, field)
        bm, bx = stats(ref, field)
        ratio = f"{bm / am:,.1f}x" if am and bm and am > 0 and unit == "us" else "-"
        out.append(f"| {label} | {unit} | {fmt(am, unit)} | {fmt(ax, unit)} | {fmt(bm, unit)} | "
                   f"{fmt(bx, unit)} | {ratio} |")
    return "\n".join(out)


def baseline_table(n, ours, before):
    """The same build's phases against an earlier build of ours (--baseline), alternated run by
    run in the same invocation, so that a change is judged against noise of the same minutes."""
    out = [f"### N = {n}: this build vs baseline", "",
           "| phase | unit | this median | baseline median | this / baseline |",
           "|---|---|---:|---:|---:|"]
    for field, label, unit in PHASES:
        am, _ = stats(ours, field)
        bm, _ = stats(before, field)
        ratio = f"{am / bm:,.2f}" if am is not None and bm else "-"
        out.append(f"| {label} | {unit} | {fmt(am, unit)} | {fmt(bm, unit)} | {ratio} |")
    return "\n".join(out)


def plot(path, ns, results):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run.py: matplotlib not available, no PNG", file=sys.stderr)
        return
    fields = [p for p in PHASES if p[2] == "us"]
    rows = (len(fields) + 2) // 3
    fig, axes = plt.subplots(rows, 3, figsize=(13, 3.4 * rows))
    for ax in list(axes.flat)[len(fields):]:
        ax.set_visible(False)
    for ax, (field, label, _) in zip(axes.flat, fields):
        for lib, style in (("ours", "o-"), ("openpmix", "s--")):
            xs, ys = [], []
            for n in ns:
                rows = results.get((lib, n))
                if rows:
                    xs.append(n)
                    ys.append(statistics.median(r[field] for r in rows))
            ax.plot(xs, ys, style, label="PMIx-C++" if lib == "ours" else "OpenPMIx 4.2.2")
        ax.set_title(label, fontsize=9)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("processes")
        ax.set_ylabel("us (median)")
        ax.grid(True, which="both", alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print(f"run.py: plot written to {path}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bindir", required=True, help="directory with pmixrun and bench-scenario")
    ap.add_argument("--n", default="2,16,64", help="process counts (comma-separated)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per N and library")
    ap.add_argument("--keys", type=int, default=2000, help="job-key Gets per rank")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run")
    ap.add_argument("--quick", action="store_true", help="one repetition, few Gets (smoke test)")
    ap.add_argument("--ours-only", action="store_true", help="skip OpenPMIx")
    ap.add_argument("--out", help="also write the Markdown report here")
    ap.add_argument("--png", help="write a plot of per-phase medians vs N here")
    ap.add_argument("--baseline", help="bindir of an earlier build of ours, run alternately with "
                    "--bindir's (same N, same repetitions) and compared in its own table")
    args = ap.parse_args()
    if args.quick:
        args.reps, args.keys = 1, 50
    ns = [int(x) for x in args.n.split(",") if x]
    libs = [("ours", "pmixrun", "bench-scenario", args.bindir)]
    if args.baseline:
        libs.append(("baseline", "pmixrun", "bench-scenario", args.baseline))
    if not args.ours_only:
        libs.append(("openpmix", "pmixrun-openpmix", "bench-scenario-openpmix", args.bindir))
    floor = socket_floor(args.bindir)
    barrier_floor = socket_floor(args.bindir, "barrier")
    results, failures = {}, []
    for n in ns:
        for rep in range(args.reps):
            for lib, launcher, program, bindir in libs:
                print(f"run.py: N={n} rep {rep + 1}/{args.reps} {lib} ...", file=sys.stderr, end="",
                      flush=True)
                try:
                    rows, took = run_once(os.path.join(bindir, launcher),
                                          os.path.join(bindir, program), n, args.keys,
                                          args.timeout)
                    results.setdefault((lib, n), []).extend(rows)
                    print(f" {took:.2f} s", file=sys.stderr)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    print(" FAILED", file=sys.stderr)
                    failures.append(f"N={n} {lib}: {e}")
    host = os.uname()
    head = [f"# End-to-end scenario: PMIx-C++ vs OpenPMIx 4.2.2 ({time.strftime('%Y-%m-%d %H:%M')})",
            "",
            f"Machine: {host.nodename} {host.release}, {os.cpu_count()} CPUs. "
            f"{args.reps} repetition(s) per N and library; median and max across all ranks of all "
            "repetitions; ratio = OpenPMIx median / ours. Launchers: pmixrun (ours) and "
            "pmixrun-openpmix (same source, Debian's libpmix). Scenario: bench/e2e/scenario.c.", ""]
    if floor is not None:
        head += [f"Machine floor (bench-floor): one 64-byte round trip over a Unix socket between two "
                 f"processes = {floor:.1f} us. Commit, every fence and every Get that asks the "
                 "server cost at least one such round trip.", ""]
    if barrier_floor is not None:
        head += [f"Barrier floor (bench-floor barrier): two client processes meeting through a "
                 f"server process, bare sockets, no threads = {barrier_floor:.1f} us; the least a "
                 "fence at N = 2 can cost on this machine without busy waiting (with it, three "
                 "spinning processes share the CPUs and it gets slower: see bench/e2e/floor.c).", ""]
    body = [table(n, results.get(("ours", n)), results.get(("openpmix", n))) + "\n" for n in ns]
    if args.baseline:
        head += [f"Baseline: {args.baseline} (an earlier build of ours), run alternately with "
                 f"{args.bindir} in this invocation.", ""]
        body += [baseline_table(n, results.get(("ours", n)), results.get(("baseline", n))) + "\n"
                 for n in ns]
    if failures:
        body.append("### Failed runs\n\n" + "\n".join(f"- {f.splitlines()[0]}" for f in failures))
    report = "\n".join(head + body)
    print(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report + "\n")
    if args.png:
        plot(args.png, ns, results)
    for f in failures:
        print(f"run.py: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
