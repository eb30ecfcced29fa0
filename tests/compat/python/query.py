"""python3-pmix's PMIxClient.query under pmixrun (--pset, --timeout): the process-set keys, the
time left, the ABI level, namespace info and memory usage, answered by our library and pmixrun.
Rank 0 prints one line per key (checked by the compat test), every rank its own PMIX_PSET_NAMES."""
from pmix import *
c = PMIxClient()
rc, me = c.init([])
if rc != PMIX_SUCCESS:
    raise SystemExit(f"init failed {rc}")
rc, names = c.get(me, PMIX_PSET_NAMES, [])
print("rank", me['rank'], "pset names", rc, names['value'] if rc == PMIX_SUCCESS else None, flush=True)
if me['rank'] == 0:
    for key in (PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES, PMIX_TIME_REMAINING,
                PMIX_QUERY_STABLE_ABI_VERSION, PMIX_QUERY_NAMESPACE_INFO, PMIX_QUERY_MEMORY_USAGE):
        rc, res = c.query([{'keys': [key], 'qualifiers': []}])
        print("query", key, rc, res, flush=True)
    rc, res = c.query([{'keys': [PMIX_QUERY_PSET_MEMBERSHIP],
                        'qualifiers': [{'key': PMIX_PSET_NAME, 'value': 'ocean', 'val_type': PMIX_STRING}]}])
    print("query membership", rc, res, flush=True)
c.fence([], [])
print("finalize", c.finalize([]))
