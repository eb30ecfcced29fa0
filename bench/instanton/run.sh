#!/usr/bin/env bash
# Instant-on wireup benchmark: N ranks on D simulated nodes (network namespaces) each open a
# libfabric endpoint (tcp;ofi_rxm) and exchange one message with every peer, learning the peers'
# addresses either from the endpoints pre-assigned before launch (setup_application's ofi-tcp
# plugin: no Put, no Fence) or with the classic Put/Commit/Fence(collect)/Get modex.
#   bash bench/instanton/run.sh [BUILD_DIR] [REPS]   (root; writes bench/results/instanton-<date>.md + .png)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
reps=${2:-3}
bin=$build/bin
for t in pmixrun pmixd bench-instanton; do
  [ -x "$bin/$t" ] || { echo "build $bin/$t first (cmake --build $build --target pmixrun pmixd bench-instanton)" >&2; exit 2; }
done
prefix="ib$$"
work=$(mktemp -d)
cleanup() { bash scripts/netns.sh destroy "$prefix"; rm -rf "$work"; }
trap cleanup EXIT
stamp=$(date -u +%Y%m%d-%H%M%S)
out=bench/results/instanton-$stamp.md
rows="$work/rows"
: >"$rows"
for d in 2 4; do
  bash scripts/netns.sh create "$prefix" "$d"
  for n in 4 16 32 64; do
    [ "$n" -ge "$d" ] || continue
    slots=$(( (n + d - 1) / d ))
    hosts=""
    for ((i = 0; i < d; i++)); do hosts+="${hosts:+,}${prefix}n$i:$slots"; done
    for ((rep = 1; rep <= reps; rep++)); do
      for mode in preassigned modex; do
        echo "== D=$d N=$n $mode (run $rep/$reps)" >&2
        line=$(timeout -s KILL 120 "$bin/pmixrun" --host "$hosts" -n "$n" --launch-agent "ip netns exec" \
          "$bin/bench-instanton" "$mode" | grep "instanton: mode") || { echo "run failed" >&2; exit 1; }
        echo "$d $n $mode $line" >>"$rows"
      done
    done
  done
  bash scripts/netns.sh destroy "$prefix"
done
py=python3
if [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then py=/usr/bin/python3; fi
"$py" - "$rows" "$out" "bench/results/instanton-$stamp.png" "$(nproc)" "$reps" <<'PY'
import sys, statistics, collections
rows, out, png, cores, reps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
data = collections.defaultdict(list)
for line in open(rows):
    f = line.split()
    d, n, mode = int(f[0]), int(f[1]), f[2]
    # d n mode "[0]" "instanton:" "mode" M "ranks" R, then key value pairs
    vals = {k: float(v) for k, v in zip(f[9::2], f[10::2])}
    data[(d, n, mode)].append(vals)
def med(d, n, mode, key):
    v = [r[key] for r in data[(d, n, mode)] if key in r]
    return statistics.median(v) if v else float('nan')
with open(out, 'w') as o:
    o.write(f"# Instant-on wireup (bench/instanton/run.sh, {cores} cores, {reps} runs each, medians)\n\n")
    o.write("Per rank from PMIx_Init's return: open = its libfabric endpoint opened; resolve = every peer's\n")
    o.write("address known (pre-assigned: PMIx_Get of PMIX_FABRIC_ENDPT from the store, no fence; modex:\n")
    o.write("Put + Commit + Fence(collect) + Get); total = one message received from every peer. Resolve:\n")
    o.write("median rank / slowest rank in microseconds; total and open: slowest rank in milliseconds; each\n")
    o.write("the median of the runs. Every process has its own libfabric progress thread; N > 2 shares 2 cores.\n\n")
    o.write("| D | N | resolve pre-assigned (us) | resolve modex (us) | total pre-assigned (ms) | total modex (ms) | open (ms) |\n")
    o.write("|---:|---:|---:|---:|---:|---:|---:|\n")
    for (d, n) in sorted({(k[0], k[1]) for k in data}):
        o.write(f"| {d} | {n} | {med(d,n,'preassigned','resolve_median_us'):.1f} / {med(d,n,'preassigned','resolve_max_us'):.1f} | "
                f"{med(d,n,'modex','resolve_median_us'):.0f} / {med(d,n,'modex','resolve_max_us'):.0f} | "
                f"{med(d,n,'preassigned','total_max_us')/1000:.1f} | {med(d,n,'modex','total_max_us')/1000:.1f} | "
                f"{med(d,n,'modex','open_max_us')/1000:.1f} |\n")
try:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for d in sorted({k[0] for k in data}):
        ns = sorted({k[1] for k in data if k[0] == d})
        ax.plot(ns, [med(d, n, 'modex', 'resolve_median_us') for n in ns], 'o-', label=f'modex (fence), D={d}')
        ax.plot(ns, [med(d, n, 'preassigned', 'resolve_median_us') for n in ns], 's--', label=f'pre-assigned, D={d}')
    ax.set_yscale('log'); ax.set_xlabel('processes N'); ax.set_ylabel('time to know every peer address (us, median rank)')
    ax.set_title('Instant-on vs modex: address resolution'); ax.legend(fontsize=8); ax.grid(True, which='both', alpha=.3)
    fig.tight_layout(); fig.savefig(png, dpi=110)
    with open(out, 'a') as o:
        o.write(f"\n![resolve time]({png.split('/')[-1]})\n")
except ImportError:
    pass
print(open(out).read())
PY
echo "report: $out" >&2
