#!/usr/bin/env python3
"""bench/iof/run.py - output throughput and line latency through launchers, in the same run.

One rank (bench-iof-writer) writes to its stdout; the launcher's stdout is a pipe read by
bench-iof-reader (the rank's own stdout, for "pipe"):
  throughput: --mbytes MiB of 1 KiB lines in write(2)s of --chunk-kib KiB; MiB/s from the
              writer's first write to the arrival of its last line (launch and teardown excluded);
              the launcher's peak RSS (VmHWM of /proc/<pid>/status, polled every 20 ms);
  latency:    --lines lines, one write(2) each, --gap-us apart, each stamped with CLOCK_MONOTONIC;
              arrival minus stamp, median and p99 over the lines.
Launchers, alternating within each repetition: the writer piped directly; our pmixrun;
pmixrun-openpmix (the same launcher source on Debian's OpenPMIx 4.2.2, built with
PMIXRUN_NO_IOF_DELIVER: it prints the output but does not hand it to PMIx_server_IOF_deliver,
which crashes in that host); Debian's Open MPI 4.1.4 mpirun on OpenPMIx and on our libpmix
(LD_LIBRARY_PATH, as bench/mpi/startup.py). Missing launchers are skipped with a note.
--ours-only: the pipe and our pmixrun (the smoke test, tests/bench). Progress on stderr; the Markdown report on stdout and in --out; --png plots the throughput."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time


def launchers(bindir, libdir, ours_only):
    out = [("pipe (no launcher)", [], None)]
    for name in ("pmixrun",) if ours_only else ("pmixrun", "pmixrun-openpmix"):
        path = os.path.join(bindir, name)
        if os.path.exists(path):
            out.append((name, [path, "-n", "1"], None))
        else:
            print(f"iof/run.py: {path} not built: skipped", file=sys.stderr)
    if ours_only:
        return out
    if shutil.which("mpirun"):
        mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-x", "LD_LIBRARY_PATH",
                  "-np", "1"]
        out.append(("mpirun (Open MPI 4.1.4, OpenPMIx)", mpirun, ""))
        out.append(("mpirun (Open MPI 4.1.4, our libpmix)", mpirun, os.path.abspath(libdir)))
    else:
        print("iof/run.py: no mpirun: Open MPI skipped", file=sys.stderr)
    return out


def peak_rss_kib(pid, stop, result):
    """Polls VmHWM of `pid` until `stop` is set; the last value read goes to result[0]."""
    path = f"/proc/{pid}/status"
    while not stop.is_set():
        try:
            with open(path) as f:
                m = re.search(r"VmHWM:\s+(\d+) kB", f.read())
            if m:
                result[0] = int(m.group(1))
        except OSError:
            return
        stop.wait(0.02)


def run_once(prefix, ld_path, writer_args, reader_args, timeout):
    env = dict(os.environ)
    if ld_path is not None:
        env["LD_LIBRARY_PATH"] = ld_path
    rfd, wfd = os.pipe()  # the launcher's stdout, read by the reader
    reader = subprocess.Popen(reader_args, stdin=rfd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    launcher = subprocess.Popen(prefix + writer_args, stdout=wfd, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=env)
    os.close(rfd)
    os.close(wfd)
    stop, rss = threading.Event(), [0]
    poller = threading.Thread(target=peak_rss_kib, args=(launcher.pid, stop, rss))
    poller.start()
    try:
        _, err = launcher.communicate(timeout=timeout)
        out, rerr = reader.communicate(timeout=timeout)
    finally:
        stop.set()
        poller.join()
        for p in (launcher, reader):
            if p.poll() is None:
                p.kill()
                p.wait()
    if launcher.returncode != 0 or reader.returncode != 0:
        raise RuntimeError(f"{' '.join(prefix + writer_args)}: exit {launcher.returncode}, "
                           f"reader {reader.returncode}: {rerr[-500:]} {err[-1000:]!r}")
    return out, rss[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bindir", required=True, help="holds pmixrun, bench-iof-writer, -reader")
    ap.add_argument("--libdir", required=True, help="directory holding our libpmix.so.2")
    ap.add_argument("--mbytes", type=int, default=256)
    ap.add_argument("--chunk-kib", type=int, default=64)
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--gap-us", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--ours-only", action="store_true",
                    help="the pipe and our pmixrun only (no OpenPMIx, no Open MPI)")
    ap.add_argument("--out")
    ap.add_argument("--png")
    args = ap.parse_args()
    writer = os.path.join(args.bindir, "bench-iof-writer")
    reader = os.path.join(args.bindir, "bench-iof-reader")
    runs = launchers(args.bindir, args.libdir, args.ours_only)
    tput, rss, lat = {}, {}, {}
    load_before = os.getloadavg()[0]
    for rep in range(args.reps):
        for name, prefix, ld in runs:
            print(f"iof/run.py: rep {rep + 1}/{args.reps} {name} ...", file=sys.stderr, end="",
                  flush=True)
            out, peak = run_once(prefix, ld,
                                 [writer, "throughput", str(args.mbytes), str(args.chunk_kib)],
                                 [reader, "throughput", str(args.mbytes)], args.timeout)
            mbps = float(re.search(r"throughput_mbps=([0-9.]+)", out).group(1))
            tput.setdefault(name, []).append(mbps)
            rss.setdefault(name, []).append(peak)
            out, _ = run_once(prefix, ld, [writer, "latency", str(args.lines), str(args.gap_us)],
                              [reader, "latency", str(args.lines)], args.timeout)
            m = re.search(r"median=([0-9.]+) p99=([0-9.]+)", out)
            lat.setdefault(name, []).append((float(m.group(1)), float(m.group(2))))
            print(f" {mbps:,.0f} MiB/s, VmHWM {peak / 1024:,.1f} MiB, line {m.group(1)} us "
                  f"(p99 {m.group(2)})", file=sys.stderr)
    report = [f"# IO forwarding: throughput and line latency ({time.strftime('%Y-%m-%d %H:%M')})",
              "",
              f"{os.cpu_count()} CPUs (1-minute load average {load_before:.1f} before, "
              f"{os.getloadavg()[0]:.1f} after); one rank; medians over {args.reps} runs per launcher, "
              "alternating. Throughput: "
              f"{args.mbytes} MiB of 1 KiB lines in {args.chunk_kib} KiB write(2)s, from the first "
              "write to the arrival of the last line at a reader on the launcher's stdout pipe. "
              f"Latency: {args.lines} lines {args.gap_us} us apart, arrival minus the "
              "CLOCK_MONOTONIC stamp written in the line (median of the runs' medians / p99s). "
              "Peak RSS: VmHWM of the launcher process (mpirun: the HNP, which hosts the PMIx "
              "server) during the throughput run, largest of the runs.",
              "",
              "| launcher | MiB/s median (min-max) | line latency median | line latency p99 | launcher peak RSS |",
              "|---|---:|---:|---:|---:|"]
    for name, _, _ in runs:
        note = " ¹" if name == "pmixrun-openpmix" else ""
        report.append(f"| {name}{note} | {statistics.median(tput[name]):,.0f} "
                      f"({min(tput[name]):,.0f}-{max(tput[name]):,.0f}) | "
                      f"{statistics.median(l[0] for l in lat[name]):,.1f} us | "
                      f"{statistics.median(l[1] for l in lat[name]):,.1f} us | "
                      f"{'n/a' if name.startswith('pipe') else f'{max(rss[name]) / 1024:,.1f} MiB'} |")
    if any(n == "pmixrun-openpmix" for n, _, _ in runs):
        report += ["", "¹ built with PMIXRUN_NO_IOF_DELIVER: it prints the output but does not "
                   "hand it to PMIx_server_IOF_deliver (OpenPMIx 4.2.2's crashes in pmixrun), so "
                   "it does less work than our pmixrun, which delivers every chunk."]
    text = "\n".join(report)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.png:
        plot(args.png, runs, tput, lat)
    return 0


def plot(path, runs, tput, lat):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("iof/run.py: no matplotlib: no PNG", file=sys.stderr)
        return
    names = [n for n, _, _ in runs]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    med = [statistics.median(tput[n]) for n in names]
    a.barh(names, med, xerr=[[m - min(tput[n]) for m, n in zip(med, names)],
                             [max(tput[n]) - m for m, n in zip(med, names)]], capsize=3)
    a.set_xlabel("MiB/s, median and min-max (higher is better)")
    a.invert_yaxis()
    b.barh(names, [statistics.median(l[1] for l in lat[n]) for n in names], alpha=0.35,
           label="p99")
    b.barh(names, [statistics.median(l[0] for l in lat[n]) for n in names], label="median")
    b.set_xscale("log")
    b.set_xlabel("line latency, us, log scale (lower is better)")
    b.set_yticklabels([])
    b.invert_yaxis()
    b.legend()
    fig.suptitle("IO forwarding: one rank's stdout through each launcher")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    sys.exit(main())
