// server/credential.cpp - see credential.h.
#include "server/credential.h"

#include "base/le.h"
#include "data/directives.h"
#include "data/value.h"
#include "exec/log.h"

#include <dlfcn.h>
#include <sys/random.h>

#include <cstring>
#include <ctime>
#include <mutex>
#include <sstream>

namespace pmix::server {

namespace {

constexpr char kMagic[4] = {'P', 'X', 'C', '1'};
constexpr std::size_t kNonceLen = 16;
constexpr std::size_t kMacLen = 32;
// magic, uid, gid, pid, rank, issued, expires, nonce, nspace length
constexpr std::size_t kFixedLen = 4 + 4 * 4 + 8 + 8 + kNonceLen + 2;

// The two libcrypto functions used (OpenSSL 3 ABI: HMAC() and EVP_sha256()).
using HmacFn = unsigned char* (*)(const void* md, const void* key, int key_len,
                                  const unsigned char* data, std::size_t data_len,
                                  unsigned char* out, unsigned int* out_len);
using DigestFn = const void* (*)();

struct Crypto {
    HmacFn hmac = nullptr;
    DigestFn sha256 = nullptr;
};

const Crypto& crypto() {
    static Crypto c;
    static std::once_flag once;
    std::call_once(once, [] {
        void* lib = ::dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) {
            exec::log_at(exec::LogLevel::warn, "pmix-server",
                         "credentials: libcrypto.so.3 not loadable; no credential mechanism");
            return;
        }
        c.hmac = reinterpret_cast<HmacFn>(::dlsym(lib, "HMAC"));
        c.sha256 = reinterpret_cast<DigestFn>(::dlsym(lib, "EVP_sha256"));
        if (c.hmac == nullptr || c.sha256 == nullptr) c = Crypto{};  // kept loaded for good
    });
    return c;
}

bool random_bytes(std::uint8_t* out, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::getrandom(out + got, n - got, 0);
        if (r <= 0) return false;
        got += static_cast<std::size_t>(r);
    }
    return true;
}

bool mac_of(const std::vector<std::uint8_t>& key, const std::uint8_t* data, std::size_t n,
            std::uint8_t out[kMacLen]) {
    const Crypto& c = crypto();
    unsigned int len = 0;
    if (c.hmac == nullptr) return false;
    return c.hmac(c.sha256(), key.data(), static_cast<int>(key.size()), data, n, out, &len) !=
               nullptr &&
           len == kMacLen;
}

bool equal_constant_time(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
    unsigned diff = 0;
    for (std::size_t i = 0; i < n; ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
    return diff == 0;
}

std::uint64_t now_seconds() { return static_cast<std::uint64_t>(std::time(nullptr)); }

}  // namespace

pmix_status_t CredentialAuthority::ready() {
    if (crypto().hmac == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    if (!have_key_) {
        key_.resize(32);
        if (!random_bytes(key_.data(), key_.size())) return PMIX_ERR_NOT_SUPPORTED;
        have_key_ = true;
    }
    return PMIX_SUCCESS;
}

pmix_status_t CredentialAuthority::use_key(const pmix_info_t* info, std::size_t ninfo) {
    const pmix_info_t* key = data::find_info(info, ninfo, PMIX_CRYPTO_KEY);
    if (key == nullptr) return PMIX_SUCCESS;
    if (key->value.type != PMIX_BYTE_OBJECT || key->value.data.bo.bytes == nullptr ||
        key->value.data.bo.size < 16) {
        return PMIX_ERR_BAD_PARAM;
    }
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(key->value.data.bo.bytes);
    key_.assign(bytes, bytes + key->value.data.bo.size);
    have_key_ = true;
    return PMIX_SUCCESS;
}

pmix_status_t CredentialAuthority::issue(const CredentialHolder& who,
                                         std::vector<std::uint8_t>* out) {
    if (pmix_status_t rc = ready(); rc != PMIX_SUCCESS) return rc;
    const std::size_t nslen = std::min<std::size_t>(who.nspace.size(), PMIX_MAX_NSLEN);
    std::vector<std::uint8_t> c(kFixedLen + nslen + kMacLen);
    std::uint8_t* p = c.data();
    std::memcpy(p, kMagic, 4);
    le::store(p + 4, static_cast<std::uint32_t>(who.uid));
    le::store(p + 8, static_cast<std::uint32_t>(who.gid));
    le::store(p + 12, static_cast<std::uint32_t>(who.pid));
    le::store(p + 16, static_cast<std::uint32_t>(who.rank));
    const std::uint64_t issued = now_seconds();
    le::store(p + 20, issued);
    le::store(p + 28, issued + static_cast<std::uint64_t>(kCredentialLifetime.count()));
    if (!random_bytes(p + 36, kNonceLen)) return PMIX_ERR_NOT_SUPPORTED;
    le::store(p + 36 + kNonceLen, static_cast<std::uint16_t>(nslen));
    std::memcpy(p + kFixedLen, who.nspace.data(), nslen);
    if (!mac_of(key_, p, kFixedLen + nslen, p + kFixedLen + nslen)) return PMIX_ERR_NOT_SUPPORTED;
    *out = std::move(c);
    return PMIX_SUCCESS;
}

pmix_status_t CredentialAuthority::validate(const std::uint8_t* cred, std::size_t n,
                                            CredentialHolder* who) {
    if (pmix_status_t rc = ready(); rc != PMIX_SUCCESS) return rc;
    if (cred == nullptr || n < kFixedLen + kMacLen || std::memcmp(cred, kMagic, 4) != 0) {
        return PMIX_ERR_INVALID_CRED;
    }
    const std::size_t nslen = le::load<std::uint16_t>(cred + 36 + kNonceLen);
    if (nslen > PMIX_MAX_NSLEN || n != kFixedLen + nslen + kMacLen) return PMIX_ERR_INVALID_CRED;
    std::uint8_t mac[kMacLen];
    if (!mac_of(key_, cred, kFixedLen + nslen, mac)) return PMIX_ERR_NOT_SUPPORTED;
    if (!equal_constant_time(mac, cred + kFixedLen + nslen, kMacLen)) return PMIX_ERR_INVALID_CRED;
    if (now_seconds() > le::load<std::uint64_t>(cred + 28)) return PMIX_ERR_INVALID_CRED;
    who->uid = static_cast<uid_t>(le::load<std::uint32_t>(cred + 4));
    who->gid = static_cast<gid_t>(le::load<std::uint32_t>(cred + 8));
    who->pid = static_cast<pid_t>(le::load<std::uint32_t>(cred + 12));
    who->rank = le::load<std::uint32_t>(cred + 16);
    who->nspace.assign(reinterpret_cast<const char*>(cred + kFixedLen), nslen);
    return PMIX_SUCCESS;
}

bool credential_type_accepted(const pmix_info_t* directives, std::size_t ndirs) {
    const char* types = data::string_of(directives, ndirs, PMIX_CRED_TYPE);
    if (types == nullptr) return true;
    std::stringstream in(types);
    for (std::string t; std::getline(in, t, ',');) {
        if (t == kCredentialType) return true;
    }
    return false;
}

}  // namespace pmix::server
