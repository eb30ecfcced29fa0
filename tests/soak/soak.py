#!/usr/bin/env python3
"""tests/soak/soak.py - jobs back to back through pmixrun, with what they leave behind counted.

Usage: soak.py BIN_DIR [--jobs N] [--minutes M] [--seed S] [--report FILE]

Runs pmixrun jobs one after another (until N jobs or M minutes, whichever comes first), mixing
sizes and endings: normal jobs (hello, putget), a rank calling PMIx_Abort, a rank killed by
SIGKILL, and pmixrun itself killed by SIGKILL at a random moment (its ranks must then end on their
own: they lose the server and exit within their timeouts). Every pmixrun runs with this soak's
TMPDIR and shared-memory prefix, so what is left behind is exactly what these jobs left:

- processes carrying the soak's tag (still alive 10 s after their job ended: a hang);
- /dev/shm entries with the soak's prefix and files under its TMPDIR, counted after every job;
  a SIGKILLed pmixrun leaves its own, which the next server must remove (stale-owner cleanup);
- each pmixrun's peak RSS (wait4's ru_maxrss), first tenth of the run against the last tenth;
- the descriptors of this driver (pipes it forgot would show here).

Every job runs under a timeout. Prints progress every 100 jobs and a Markdown summary; exits 1 if
a job ended otherwise than its kind expects, a process or file was left behind at the end, or a
count grew without bound.
"""
import argparse
import glob
import os
import shutil
import random
import signal
import subprocess
import sys
import time

JOB_TIMEOUT_S = 60
LEFTOVER_WAIT_S = 10


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("bin")
    p.add_argument("--jobs", type=int, default=2000)
    p.add_argument("--minutes", type=float, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--report", default="")
    return p.parse_args()


# (kind, example, sizes, expected exit status; None = pmixrun is SIGKILLed by us)
KINDS = [
    ("hello", "hello", [1, 2, 4, 8, 16], 0),
    ("putget", "putget", [2, 4, 8], 0),
    ("abort", "abort", [3], 3),
    ("killed", "killed", [4], 137),
    ("pmixrun-killed", "putget", [4, 8], None),
]
WEIGHTS = [35, 35, 10, 10, 10]
FINAL = ("final-hello", "hello", [2], 0)


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.tag = f"soak.{os.getpid()}"
        self.shm_prefix = f"pmixsoak-{os.getpid()}"
        self.tmp = f"/tmp/pmix-soak.{os.getpid()}"
        os.makedirs(self.tmp)
        self.err_path = self.tmp + ".err"  # outside TMPDIR: it is not a leftover of the jobs
        self.maxrss = []  # KiB per job
        self.counts = []  # (job index, shm entries, tmp files) after each job
        self.failures = []
        self.kinds_run = {}

    def shm_entries(self):
        return len(glob.glob(f"/dev/shm/{self.shm_prefix}*"))

    def tmp_entries(self):
        """What the jobs left in TMPDIR, but ThreadSanitizer's own tsan.rodata.<pid>: its runtime
        creates it there and unlinks it at once as a process starts, so a pmixrun-killed job that
        SIGKILLs pmixrun in that window leaves one (seen once in a tsan CI run); not ours."""
        return [os.path.relpath(os.path.join(d, n), self.tmp)
                for d, dirs, files in os.walk(self.tmp) for n in dirs + files
                if not n.startswith("tsan.rodata.")]

    def tmp_files(self):
        return len(self.tmp_entries())

    def remove_everything(self, extra_files=()):
        """Kills what still carries the tag and removes the soak's TMPDIR, its own files and its
        /dev/shm entries (after the counts were taken)."""
        for pid in self.tagged_pids():
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.tmp, ignore_errors=True)
        for path in [self.err_path, *extra_files, *glob.glob(f"/dev/shm/{self.shm_prefix}*")]:
            if os.path.exists(path):
                os.unlink(path)

    def tagged_pids(self):
        pids = []
        for env in glob.glob("/proc/[0-9]*/environ"):
            try:
                with open(env, "rb") as f:
                    if f"PMIXRUN_TEST_TAG={self.tag}".encode() in f.read():
                        pids.append(int(env.split("/")[2]))
            except OSError:
                pass
        return pids

    def run_one(self, index, forced=None):
        if forced is None and 0 <= index < len(KINDS):
            forced = KINDS[index]  # every kind once first, so that a short run has them all
        kind, example, sizes, expected = forced or self.rng.choices(KINDS, WEIGHTS)[0]
        n = self.rng.choice(sizes)
        self.kinds_run[kind] = self.kinds_run.get(kind, 0) + 1
        env = dict(os.environ, PMIXRUN_TEST_TAG=self.tag, TMPDIR=self.tmp,
                   PMIX_CPP_GDS_PREFIX="/" + self.shm_prefix)
        cmd = [os.path.join(self.args.bin, "pmixrun"), "-n", str(n), "--timeout", "40",
               os.path.join(self.args.bin, example)]
        if example == "hello":
            cmd.append(str(n))
        with open(self.err_path, "w+b") as err:
            proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err)
            if expected is None:
                time.sleep(self.rng.uniform(0.0, 0.15))
                os.kill(proc.pid, signal.SIGKILL)  # not send_signal: its poll() would reap
            status, rss_kib = self.reap(proc)
            err.seek(0)
            tail = err.read()[-300:].decode(errors="replace")
        if status is None:
            self.failures.append(f"job {index} ({kind}, n={n}) hung: killed after {JOB_TIMEOUT_S} s")
            return
        self.maxrss.append(rss_kib)
        if expected is not None and status != expected:
            self.failures.append(f"job {index} ({kind}, n={n}) exited {status}, expected "
                                 f"{expected}: {tail}")
        if expected is None:
            self.wait_for_orphans(index, kind, n)

    @staticmethod
    def reap(proc):
        """Waits for pmixrun with wait4 (for its own peak RSS); (exit status, KiB) or (None, 0)."""
        deadline = time.time() + JOB_TIMEOUT_S
        while time.time() < deadline:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                proc.returncode = 0  # reaped here: keep Popen from waiting again
                code = os.waitstatus_to_exitcode(status)
                return (code if code >= 0 else 128 - code), usage.ru_maxrss
            time.sleep(0.005)
        proc.kill()
        os.wait4(proc.pid, 0)
        proc.returncode = -9
        return None, 0

    def wait_for_orphans(self, index, kind, n):
        deadline = time.time() + LEFTOVER_WAIT_S + 30  # the ranks' own timeouts first
        while time.time() < deadline and self.tagged_pids():
            time.sleep(0.1)
        left = self.tagged_pids()
        if left:
            self.failures.append(f"job {index} ({kind}, n={n}): {len(left)} ranks still alive "
                                 "after pmixrun was killed")
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


def tenth_mean(values, last):
    k = max(1, len(values) // 10)
    part = values[-k:] if last else values[:k]
    return sum(part) / len(part)


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def summarize(soak, jobs, wall_s, fds):
    shm_first = max(c[1] for c in soak.counts[: max(1, len(soak.counts) // 10)])
    shm_last = max(c[1] for c in soak.counts[-max(1, len(soak.counts) // 10):])
    tmp_first = max(c[2] for c in soak.counts[: max(1, len(soak.counts) // 10)])
    tmp_last = max(c[2] for c in soak.counts[-max(1, len(soak.counts) // 10):])
    rss_first, rss_last = tenth_mean(soak.maxrss, False), tenth_mean(soak.maxrss, True)
    end = soak.counts[-1]
    lines = [
        f"| jobs | wall | kinds | pmixrun peak RSS, first / last tenth (mean) | "
        "/dev/shm entries, max in first / last tenth, at end | TMPDIR entries, same | "
        "driver fds start / end | left-over processes |",
        "|---|---|---|---|---|---|---|---|",
        f"| {jobs} | {wall_s:.0f} s | "
        + ", ".join(f"{k} {v}" for k, v in sorted(soak.kinds_run.items()))
        + f" | {rss_first / 1024:.1f} / {rss_last / 1024:.1f} MiB | {shm_first} / {shm_last}, "
        f"{end[1]} | {tmp_first} / {tmp_last}, {end[2]} | {fds[0]} / {fds[1]} | "
        f"{len(soak.tagged_pids())} |",
    ]
    if end[1] != 0 or end[2] != 0:
        names = soak.tmp_entries()
        names += [os.path.basename(p) for p in glob.glob(f"/dev/shm/{soak.shm_prefix}*")]
        soak.failures.append(f"left behind at the end: {end[1]} /dev/shm entries, "
                             f"{end[2]} TMPDIR entries: {' '.join(sorted(names)[:10])}")
    if shm_last > shm_first + 2 or tmp_last > tmp_first + 4:
        soak.failures.append("leftovers grew over the run (see the table)")
    if rss_last > rss_first * 1.10 + 1024:
        soak.failures.append("pmixrun's peak RSS grew over the run (see the table)")
    if fds[1] > fds[0]:
        soak.failures.append("the driver's descriptors grew")
    return "\n".join(lines)


def report(soak, table, report_file):
    """Prints the table (and writes it to report_file), then the failures; the exit code."""
    print(table)
    if report_file:
        with open(report_file, "w") as f:
            f.write(table + "\n")
    for failure in soak.failures[:20]:
        print("FAIL:", failure)
    return 1 if soak.failures else 0


def main():
    args = parse_args()
    soak = Soak(args)
    fds_start = open_fds()
    start = time.time()
    jobs = 0
    try:
        while jobs < args.jobs and (args.minutes <= 0 or time.time() - start < args.minutes * 60):
            soak.run_one(jobs)
            jobs += 1
            soak.counts.append((jobs, soak.shm_entries(), soak.tmp_files()))
            if jobs % 100 == 0:
                print(f"soak: {jobs} jobs, {time.time() - start:.0f} s, "
                      f"shm {soak.counts[-1][1]}, tmp {soak.counts[-1][2]}, "
                      f"rss {soak.maxrss[-1] / 1024:.1f} MiB, failures {len(soak.failures)}",
                      flush=True)
        # one last ordinary job: a server after a killed one removes what the dead owner left
        soak.run_one(-1, FINAL)
        soak.counts.append((jobs, soak.shm_entries(), soak.tmp_files()))
        table = summarize(soak, jobs, time.time() - start, (fds_start, open_fds()))
    finally:
        if os.environ.get("SOAK_KEEP"):
            print("kept:", soak.tmp, sorted(glob.glob(f"/dev/shm/{soak.shm_prefix}*")))
            return 1
        soak.remove_everything()
    return report(soak, table, args.report)


if __name__ == "__main__":
    sys.exit(main())
