#!/usr/bin/env python3
"""bench/slurm/run.py - `srun --mpi=pmix` start-up on our libpmix.so.2 vs Debian's OpenPMIx 4.2.2.

Starts the two throwaway Slurm clusters of tests/slurm/cluster.sh (one on OpenPMIx, one with our
library in place of Debian's in the slurmd's mount namespaces), on one node and on two simulated
nodes, and for each N runs --reps times on each cluster, alternating (OpenPMIx, ours, ...):
  - `srun --mpi=pmix -n N bench-mpi-hello` (Open MPI: MPI_Init + one MPI_Allreduce): srun's wall;
  - `srun --mpi=pmix -n N bench-slurm-init-fence` (a PMIx client): srun's wall, PMIx_Init and one
    collecting fence per rank.
The same binaries run on both clusters. Reports medians (ranks of all repetitions for the
per-rank phases) and ratio = ours / OpenPMIx (< 1: we are faster). Progress on stderr, the
Markdown report on stdout and in --out. Root only (Slurm daemons, namespaces)."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "..", "..", "tests", "slurm", "cluster.sh")
MPI = re.compile(r"MPIBENCH rank=(\d+) size=(\d+) init_us=([0-9.]+)")
PMIX = re.compile(r"SLURMBENCH rank=(\d+) size=(\d+) init_us=([0-9.]+) fence_us=([0-9.]+)"
                  r" fence_in=([0-9.]+) fence_out=([0-9.]+)")


def cluster_env(dirfile, name):
    out = subprocess.run(["bash", CLUSTER, "env", dirfile, name], check=True, text=True,
                         stdout=subprocess.PIPE).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def srun(env, n, program, pattern, timeout):
    cmd = ["env", f"SLURM_CONF={env['CDIR']}/slurm.conf", "srun", "--mpi=pmix", "--chdir=/tmp",
           "-N", env["NODES"], "-n", str(n), program]
    if env["PREFIX"]:
        cmd = ["nsenter", f"--net=/run/netns/{env['PREFIX']}n0"] + cmd
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    rows = [m.groups() for m in pattern.finditer(p.stdout)]
    if p.returncode != 0 or len(rows) != n:
        raise RuntimeError(f"{' '.join(cmd)} -> exit {p.returncode}, {len(rows)}/{n} ranks\n"
                           f"{p.stdout[-800:]}{p.stderr[-800:]}")
    return wall, rows


def wait_idle(env):
    sinfo = ["env", f"SLURM_CONF={env['CDIR']}/slurm.conf", "sinfo", "-h", "-N", "-o", "%T"]
    if env["PREFIX"]:
        sinfo = ["nsenter", f"--net=/run/netns/{env['PREFIX']}n0"] + sinfo
    for _ in range(150):
        states = subprocess.run(sinfo, stdout=subprocess.PIPE, text=True).stdout.split()
        if states and all(s == "idle" for s in states):
            return
        time.sleep(0.1)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def measure(dirfile, nodes, args, lines):
    envs = {name: cluster_env(dirfile, name) for name in ("openpmix", "ours")}
    for n in args.n:
        if n < nodes:
            continue
        data = {name: {"mpi_wall": [], "mpi_init": [], "pmix_wall": [], "init": [], "fence": [],
                       "fence_own": [], "failed": 0} for name in envs}
        for rep in range(args.reps):
            for name, env in envs.items():
                # A failed job is counted and shown in the table, never retried or hidden.
                try:
                    wait_idle(env)
                    wall, rows = srun(env, n, args.mpi_program, MPI, args.timeout)
                    data[name]["mpi_wall"].append(wall * 1e3)
                    data[name]["mpi_init"] += [float(r[2]) / 1e3 for r in rows]
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    data[name]["failed"] += 1
                    print(f"FAILED ({name}): {e}", file=sys.stderr)
                try:
                    wait_idle(env)
                    wall, rows = srun(env, n, args.pmix_program, PMIX, args.timeout)
                    data[name]["pmix_wall"].append(wall * 1e3)
                    data[name]["init"] += [float(r[2]) / 1e3 for r in rows]
                    data[name]["fence"] += [float(r[3]) / 1e3 for r in rows]
                    # The fence's own cost: from the last rank's arrival to the last release
                    # (a rank's fence time also holds its wait for ranks that started later).
                    last_in = max(float(r[4]) for r in rows)
                    data[name]["fence_own"].append((max(float(r[5]) for r in rows) - last_in) / 1e3)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    data[name]["failed"] += 1
                    print(f"FAILED ({name}): {e}", file=sys.stderr)
            print(f"nodes {nodes} N {n} rep {rep + 1}/{args.reps}", file=sys.stderr)
        cells = []
        for key in ("mpi_wall", "mpi_init", "pmix_wall", "init", "fence", "fence_own"):
            ref, ours = med(data["openpmix"][key]), med(data["ours"][key])
            cells.append(f"{ref:.1f} / {ours:.1f} ({ours / ref:.2f})")
        cells.append(f"{data['openpmix']['failed']} / {data['ours']['failed']}")
        lines.append(f"| {nodes} | {n} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mpi-program", required=True, help="bench-mpi-hello")
    ap.add_argument("--pmix-program", required=True, help="bench-slurm-init-fence")
    ap.add_argument("--lib", required=True, help="our libpmix.so.2 (the real file)")
    ap.add_argument("--n", default="2,4,8,16", help="ranks per job, comma-separated")
    ap.add_argument("--nodes", default="1,2", help="node counts, comma-separated")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out", help="Markdown report file")
    args = ap.parse_args()
    args.n = [int(x) for x in args.n.split(",")]
    args.mpi_program = os.path.abspath(args.mpi_program)  # srun runs them from --chdir=/tmp
    args.pmix_program = os.path.abspath(args.pmix_program)
    lines = [
        "# `srun --mpi=pmix` start-up: Debian's OpenPMIx 4.2.2 vs ours",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, Slurm "
        f"{subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'slurm-client'], stdout=subprocess.PIPE, text=True).stdout.strip()}, "
        f"our library {args.lib}, "
        f"{args.reps} repetitions per cell, alternating OpenPMIx and ours; two clusters of "
        "tests/slurm/cluster.sh (2 nodes = two network namespaces on this machine, 16 CPUs "
        "declared per node, block distribution). Cells: OpenPMIx / ours (ours / OpenPMIx), "
        "milliseconds, medians (per-rank phases over all ranks of all repetitions) of the jobs "
        "that succeeded; failed jobs: OpenPMIx / ours, out of 2 x repetitions (their errors "
        "went to stderr). Collecting fence: each rank's PMIx_Fence, which includes its wait for "
        "ranks that started later; after last arrival: from the last rank's entry to the last "
        "rank's return (one median per job), the fence's own cost.",
        "",
        "| nodes | N | MPI hello wall | MPI_Init | PMIx client wall | PMIx_Init | collecting fence "
        "| fence after last arrival | failed jobs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for nodes in [int(x) for x in args.nodes.split(",")]:
        dirfile = f"/tmp/pmix-slurm-bench-{os.getpid()}-{nodes}.dir"
        start = subprocess.run(["bash", CLUSTER, "start", dirfile, str(nodes), args.lib],
                               stdout=sys.stderr, stderr=sys.stderr)
        if start.returncode != 0:
            sys.exit(f"cannot start the clusters on {nodes} node(s) (exit {start.returncode})")
        try:
            measure(dirfile, nodes, args, lines)
        finally:
            subprocess.run(["bash", CLUSTER, "stop", dirfile], stdout=sys.stderr)
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report)


if __name__ == "__main__":
    main()
