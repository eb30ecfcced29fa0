#!/usr/bin/env bash
# bench/run.sh [run.py options]: builds the benchmark targets (release preset) and runs, side by side
# with Debian's OpenPMIx 4.2.2 where a comparison exists:
#   1. the end-to-end scenario (bench/e2e) for N = 2, 16, 64 (run.py options such as --n 2,8
#      --reps 5 --quick are passed through), report + plot in bench/results/;
#   2. the store micro benchmarks (bench-gds, Google Benchmark);
#   3. the scale simulation (bench-scale: 1,000,000 processes over 10,000 nodes);
#   4. Open MPI startup (mpirun -np 2..16) on our library vs OpenPMIx (bench/mpi/startup.py);
#   5. IO forwarding: one rank's output (256 MiB; 1000 stamped lines) through a pipe, pmixrun,
#      pmixrun-openpmix and mpirun (bench/iof/run.py);
#   6. the one-node scale sweep, N = 2..1024 (bench/e2e/sweep.py, default options).
# bench/run.sh --sweep [sweep.py options]: only the scale sweep (launch wall, PMIx_Init, modex cycle,
# first vs warm Get, PMIx_Finalize, Pss; ours vs OpenPMIx), e.g. --n 2,16,64 --reps 1 --timeout 30,
# or --baseline OTHER_TREE/build/release/bin to put an earlier build of ours next to this one.
# bench/run.sh --slurm [slurm/run.py options]: only `srun --mpi=pmix` start-up on one node and on
# two simulated nodes, our library vs OpenPMIx (bench/slurm/run.py; root, Slurm and munge).
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's interpreter has python3-matplotlib (scripts/setup.sh installs it) for the PNG; a python3
# earlier on PATH (pyenv, venv) may not.
py=python3
if [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then py=/usr/bin/python3; fi
sweep_targets=(pmixrun pmixrun-openpmix putget putget-openpmix bench-scenario bench-scenario-openpmix)
# Each of the sweep's jobs has a timeout in sweep.py (pmixrun --timeout, then its process group is
# killed 15 s later); SIGTERM (this outer bound) or Ctrl-C kills the running job's group too.
run_sweep() {
  local stamp=$1
  shift
  timeout -s TERM 7200 "$py" bench/e2e/sweep.py --bindir build/release/bin --out "bench/results/sweep-$stamp.md" \
    --png "bench/results/sweep-$stamp.png" "$@"
}
if [[ ${1:-} == --sweep ]]; then
  shift
  bash scripts/setup.sh release "${sweep_targets[@]}" >/dev/null
  mkdir -p bench/results
  stamp=$(date +%Y%m%d-%H%M%S)
  echo "== scale sweep (progress on stderr)" >&2
  run_sweep "$stamp" "$@"
  echo "report: bench/results/sweep-$stamp.md (+ .png when matplotlib is installed)"
  exit 0
fi
if [[ ${1:-} == --slurm ]]; then
  shift
  bash scripts/setup.sh release pmix bench-mpi-hello bench-slurm-init-fence >/dev/null
  mkdir -p bench/results
  report=bench/results/slurm-startup-$(date +%Y%m%d-%H%M%S).md
  python3 bench/slurm/run.py --mpi-program build/release/bin/bench-mpi-hello \
    --pmix-program build/release/bin/bench-slurm-init-fence \
    --lib "$(readlink -f build/release/lib/libpmix.so.2)" --out "$report" "$@"
  echo "report: $report"
  exit 0
fi
bash scripts/setup.sh release "${sweep_targets[@]}" bench-scale bench-gds bench-floor \
  bench-mpi-hello bench-iof-writer bench-iof-reader >/dev/null
bin=build/release/bin
out=bench/results
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
echo "== 1/6 end-to-end scenario (progress on stderr)" >&2
"$py" bench/e2e/run.py --bindir "$bin" --out "$out/e2e-$stamp.md" --png "$out/e2e-$stamp.png" "$@"
echo
echo "== 2/6 store micro benchmarks (bench-gds; /1 = shared memory, /0 = heap)"
"$bin/bench-gds" --benchmark_min_time=0.2
echo
echo "== 3/6 scale simulation (bench-scale)"
"$bin/bench-scale" 1000000 10000
echo
echo "== 4/6 Open MPI startup, our library vs OpenPMIx (progress on stderr)"
python3 bench/mpi/startup.py --program "$bin/bench-mpi-hello" --libdir build/release/lib \
  --out "$out/mpi-startup-$stamp.md"
echo
echo "== 5/6 IO forwarding: pipe, pmixrun, pmixrun-openpmix, mpirun (progress on stderr)"
"$py" bench/iof/run.py --bindir "$bin" --libdir build/release/lib --out "$out/iof-$stamp.md" \
  --png "$out/iof-$stamp.png"
echo
echo "== 6/6 one-node scale sweep, N = 2..1024, ours vs OpenPMIx (progress on stderr)"
run_sweep "$stamp" >/dev/null
echo
echo "reports: $out/e2e-$stamp.md (+ .png when matplotlib is installed), $out/mpi-startup-$stamp.md," \
  "$out/iof-$stamp.md (+ .png), $out/sweep-$stamp.md (+ .png)"
