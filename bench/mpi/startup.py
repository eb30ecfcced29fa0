#!/usr/bin/env python3
"""bench/mpi/startup.py - Open MPI job startup on our libpmix.so.2 vs Debian's OpenPMIx 4.2.2.

For each N, runs `mpirun --allow-run-as-root --oversubscribe -np N bench-mpi-hello` --reps times
on each library, alternating (OpenPMIx, ours, OpenPMIx, ...), the same binaries both times: only
LD_LIBRARY_PATH differs (our library first, exported to the ranks with -x). Reports per N the
median wall time of the whole mpirun and the median / max MPI_Init time across all ranks of all
repetitions, with ratio = ours / OpenPMIx (< 1: we are faster). Progress goes to stderr; the
Markdown report to stdout and to --out."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

LINE = re.compile(r"MPIBENCH rank=(\d+) size=(\d+) init_us=([0-9.]+)")


def run_once(program, n, libdir, timeout):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = libdir or ""
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-x", "LD_LIBRARY_PATH", "-np",
           str(n), program]
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    inits = [float(m.group(3)) for m in LINE.finditer(p.stdout)]
    if p.returncode != 0 or len(inits) != n:
        raise RuntimeError(f"{' '.join(cmd)} ({libdir or 'OpenPMIx'}) -> exit {p.returncode}, "
                           f"{len(inits)}/{n} ranks reported\n{p.stderr[-1500:]}")
    return wall, inits


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--program", required=True, help="bench-mpi-hello")
    ap.add_argument("--libdir", required=True, help="directory holding our libpmix.so.2")
    ap.add_argument("--n", default="2,4,8,16")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--out")
    args = ap.parse_args()
    ns = [int(x) for x in args.n.split(",") if x]
    libs = [("openpmix", ""), ("ours", os.path.abspath(args.libdir))]
    data = {}
    for n in ns:
        for rep in range(args.reps):
            for name, libdir in libs:
                print(f"startup.py: N={n} rep {rep + 1}/{args.reps} {name} ...", file=sys.stderr,
                      end="", flush=True)
                wall, inits = run_once(args.program, n, libdir, args.timeout)
                d = data.setdefault((name, n), {"wall": [], "init": []})
                d["wall"].append(wall)
                d["init"].extend(inits)
                print(f" {wall:.2f} s", file=sys.stderr)
    out = [f"# Open MPI 4.1.4 startup: our libpmix vs OpenPMIx 4.2.2 ({time.strftime('%Y-%m-%d %H:%M')})",
           "",
           f"{os.cpu_count()} CPUs; `mpirun -np N bench-mpi-hello`, {args.reps} runs per N and library, "
           "alternating; same mpirun and binaries, only LD_LIBRARY_PATH differs. Ratio = ours / "
           "OpenPMIx (goal for the wall time: <= 0.9).", "",
           "| N | wall ours (median) | wall OpenPMIx (median) | ratio | MPI_Init ours median / max | "
           "MPI_Init OpenPMIx median / max | ratio |",
           "|---:|---:|---:|---:|---:|---:|---:|"]
    for n in ns:
        a, b = data[("ours", n)], data[("openpmix", n)]
        wa, wb = statistics.median(a["wall"]), statistics.median(b["wall"])
        ia, ib = statistics.median(a["init"]), statistics.median(b["init"])
        out.append(f"| {n} | {wa * 1e3:,.0f} ms | {wb * 1e3:,.0f} ms | {wa / wb:.2f} | "
                   f"{ia / 1e3:,.1f} / {max(a['init']) / 1e3:,.1f} ms | "
                   f"{ib / 1e3:,.1f} / {max(b['init']) / 1e3:,.1f} ms | {ia / ib:.2f} |")
    report = "\n".join(out)
    print(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
