// client/store_path.h - PMIx_Get answered from the server's shared-memory store (gds/) on the
// caller's thread: no lock, no system call, no thread hop for data that is present.
//
// The server passes the store's locator in PMIX_CPP_GDS_LOCATOR (PMIx_server_setup_fork). Without
// it, or when the store cannot be opened or turns out damaged, every Get takes the server path as
// before; a miss (a peer's key before the fence, a key nobody has) also goes to the server, which
// then waits for the commit or asks the host (direct modex).
#pragma once

#include <pmix_common.h>

#include <cstddef>

namespace pmix::client::store_path {

// At PMIx_Init (first reference, `me` = this process) / teardown. Never fails the caller:
// problems are logged.
void open_from_env(const pmix_proc_t& me);
void close();

// PMIx_Get's arguments as given (proc NULL = own namespace, job level; empty nspace = own).
// PMIX_SUCCESS with *out (malloc'd, the caller releases it; with PMIX_GET_POINTER_VALUES it points
// into the read-only mapping and must not be released) when the store answers;
// PMIX_ERR_NOT_FOUND when the caller must take the server path (absent, not eligible, no store,
// the caller's own proc-level keys, which may not be committed yet, bad arguments).
pmix_status_t try_get(const pmix_proc_t* proc, const char* key, const pmix_info_t* info,
                      std::size_t ninfo, pmix_value_t** out) noexcept;

// The same for the caller's own proc-level keys (`me` names this process), once the caller has
// found them in neither its cache nor its uncommitted puts: what the store holds of it then is
// what the server would answer. Other procs: PMIX_ERR_NOT_FOUND.
pmix_status_t try_get_own(const pmix_proc_t& me, const char* key, const pmix_info_t* info,
                          std::size_t ninfo, pmix_value_t** out) noexcept;

// True when `info` asks for PMIX_GET_POINTER_VALUES.
// After a fence that brought data, on the caller's thread: its view of its own namespace moves to
// the newest commit and the new records are read through once (gds StoreReader::warm), so that
// its first Get of a peer's fresh key costs what a repeated one does, not a new root's
// validation and a cache miss per record.
void warm_after_fence() noexcept;

bool pointer_mode(const pmix_info_t* info, std::size_t ninfo) noexcept;

// A pointer-mode answer that came from the server (a malloc'd copy): the caller must not release
// it, so the library keeps it and releases it at PMIx_Finalize.
void retain_until_finalize(pmix_value_t* value) noexcept;

}  // namespace pmix::client::store_path
