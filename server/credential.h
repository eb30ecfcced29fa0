// server/credential.h - the library's own credentials (PMIx_Get_credential /
// PMIx_Validate_credential when the host has no get_credential / validate_credential upcall).
//
// A credential states who asked for it, as the kernel told the server at connect (SO_PEERCRED:
// uid, gid, pid) and as it registered (namespace, rank), when it was issued and when it expires,
// and a random nonce; an HMAC-SHA256 under a 256-bit key that only this server holds covers all
// of it. Any client of the same server can have it validated: validation recomputes the MAC
// (constant-time compare) and checks the expiry, so a forged credential (no key) or one with any
// byte altered is refused with PMIX_ERR_INVALID_CRED.
//
// Why the key is in the library and not in the host: every host gets real credentials without
// writing upcalls, the way OpenPMIx's psec plugins create them in the server library; a host that
// has its own (munge, a scheduler's) provides the upcalls and those take precedence.
//
// The key is random per server unless PMIx_server_init is given PMIX_CRYPTO_KEY (at least 16
// bytes): servers given the same key validate each other's credentials (pmixrun hands one key to
// the pmixd of every node of a job, over its launch channel, so a credential is valid job-wide).
//
// Why libcrypto is loaded with dlopen at the first credential, in the server only: linking it
// into libpmix.so.2 loads it into every client and adds ~540 us to each process start (an empty
// program linked to libpmix: 1,485-1,492 us, with -lcrypto 2,028-2,043 us; 300 starts each, two
// runs). Loaded on demand it costs the server once: a host's first PMIx_Get_credential took
// 1,922 us, the next ones 5-8 us and a validation 5-19 us (release-like dev build, in-process,
// five rounds). Without libcrypto.so.3 (Debian package libssl3) the library has no mechanism and
// answers PMIX_ERR_NOT_SUPPORTED.
//
// Layout (little-endian): "PXC1" | uid u32 | gid u32 | pid u32 | rank u32 | issued u64 |
// expires u64 (Unix seconds) | nonce[16] | nspace length u16 | nspace | HMAC-SHA256[32].
#pragma once

#include <pmix_common.h>

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pmix::server {

// The type named in PMIX_CRED_TYPE for these credentials.
inline constexpr char kCredentialType[] = "pmix-cpp-hmac-sha256";
// How long a credential stays valid after it is issued.
inline constexpr std::chrono::seconds kCredentialLifetime{3600};

struct CredentialHolder {
    uid_t uid = 0;
    gid_t gid = 0;
    pid_t pid = 0;
    std::string nspace;
    pmix_rank_t rank = 0;
};

// The server's key; created at the first use (server's loop thread only).
class CredentialAuthority {
public:
    // PMIX_CRYPTO_KEY of PMIx_server_init; PMIX_ERR_BAD_PARAM when it is not a byte object of
    // at least 16 bytes. Before the server's loop runs (init).
    pmix_status_t use_key(const pmix_info_t* info, std::size_t ninfo);
    // PMIX_ERR_NOT_SUPPORTED when libcrypto cannot be loaded.
    pmix_status_t issue(const CredentialHolder& who, std::vector<std::uint8_t>* out);
    // PMIX_ERR_INVALID_CRED for anything not issued by this key, altered, or expired.
    pmix_status_t validate(const std::uint8_t* cred, std::size_t n, CredentialHolder* who);

private:
    pmix_status_t ready();
    std::vector<std::uint8_t> key_;
    bool have_key_ = false;
};

// PMIX_CRED_TYPE among `directives` (a comma-separated list of acceptable types): true when it
// is absent or lists kCredentialType.
bool credential_type_accepted(const pmix_info_t* directives, std::size_t ndirs);

}  // namespace pmix::server
