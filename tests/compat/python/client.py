"""A python3-pmix client (PMIxClient) under pmixrun: Put/Commit/Fence with data collection, Get the job size
and the next rank's key, Finalize; prints one line per rank (checked by the compat test)."""
from pmix import *
c = PMIxClient()
rc, me = c.init([])
if rc != PMIX_SUCCESS:
    raise SystemExit(f"init failed {rc}")
rc = c.put(PMIX_GLOBAL, "py.key", {'value': "v%d" % me['rank'], 'val_type': PMIX_STRING})
rc2 = c.commit()
rc3 = c.fence([], [{'key': PMIX_COLLECT_DATA, 'value': True, 'val_type': PMIX_BOOL}])
rc4, size = c.get({'nspace': me['nspace'], 'rank': PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, [])
peer = {'nspace': me['nspace'], 'rank': (me['rank'] + 1) % size['value']}
rc5, val = c.get(peer, "py.key", [])
print("rank", me['rank'], "put", rc, "commit", rc2, "fence", rc3, "size", size['value'], "peer", val['value'], rc5, flush=True)
print("finalize", c.finalize([]))
