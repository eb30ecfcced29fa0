// client/query_local.cpp - see query_local.h.
#include "client/query_local.h"

#include "data/attr_support.h"
#include "client/state.h"
#include "client/tool_chain.h"
#include "base/env_names.h"
#include "data/directives.h"
#include "data/value.h"
#include "wire/proto/message.h"
#include "wire/rendezvous.h"

#include <cstring>
#include <set>
#include <string>

namespace pmix::client {

namespace {

using data::key_is;

const char* string_qualifier(const pmix_query_t& q, const char* key) {
    return data::string_of(q.qualifiers, q.nqual, key);
}

// Every server whose rendezvous file this process can read, once each (one server writes
// several files), the system server first.
std::vector<wire::Rendezvous> visible_servers(const pmix_query_t& q) {
    const std::string host = local_host_name();
    const std::string dir =
        wire::pick_tmpdir(string_qualifier(q, PMIX_SERVER_TMPDIR), env::kServerTmpdir);
    const std::string sys =
        wire::pick_tmpdir(string_qualifier(q, PMIX_SYSTEM_TMPDIR), env::kSystemTmpdir);
    std::vector<std::string> files = {wire::system_file(sys, host)};
    for (auto& f : wire::tool_files_in(dir, host)) files.push_back(std::move(f));
    std::vector<wire::Rendezvous> out;
    std::set<std::string> seen;
    for (const auto& f : files) {
        auto r = wire::read_rendezvous(f);
        if (!r.ok() || !wire::pid_alive(r.value.pid) || !seen.insert(r.value.uri).second) continue;
        out.push_back(std::move(r.value));
    }
    return out;
}

void load(pmix_info_t* info, const char* key, const void* data, pmix_data_type_t type) {
    std::memset(info, 0, sizeof(*info));
    std::strncpy(info->key, key, PMIX_MAX_KEYLEN);
    data::value_load(&info->value, data, type);
}

bool avail_servers(const pmix_query_t& q, pmix_info_t* out) {
    auto servers = visible_servers(q);
    pmix_data_array_t outer{};
    outer.type = PMIX_INFO;
    outer.size = servers.size();
    auto* entries = static_cast<pmix_info_t*>(
        std::calloc(servers.empty() ? 1 : servers.size(), sizeof(pmix_info_t)));
    outer.array = entries;
    for (std::size_t i = 0; i < servers.size(); ++i) {
        const auto& s = servers[i];
        pmix_info_t fields[5];
        load(&fields[0], PMIX_SERVER_NSPACE, s.nspace.c_str(), PMIX_STRING);
        load(&fields[1], PMIX_SERVER_RANK, &s.rank, PMIX_PROC_RANK);
        load(&fields[2], PMIX_SERVER_URI, s.uri.c_str(), PMIX_STRING);
        pid_t pid = s.pid;
        load(&fields[3], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        load(&fields[4], PMIX_VERSION_INFO, s.version.c_str(), PMIX_STRING);
        pmix_data_array_t inner{PMIX_INFO, 5, fields};
        load(&entries[i], PMIX_SERVER_INFO_ARRAY, &inner, PMIX_DATA_ARRAY);
        for (auto& f : fields) data::info_destruct(&f);
    }
    load(out, PMIX_QUERY_AVAIL_SERVERS, &outer, PMIX_DATA_ARRAY);
    for (std::size_t i = 0; i < servers.size(); ++i) data::info_destruct(&entries[i]);
    std::free(entries);
    return true;
}

// The Standard ABI levels this library implements: OpenPMIx 4.2.2's, whose VERSION file says
// std_abi_stable=0.0 and std_abi_provisional=0.0 (it answers these strings), and whose ABI this
// library has.
constexpr const char* kStableAbi = "0.0";
constexpr const char* kProvisionalAbi = "0.0";

bool abi_key(const char* key) {
    return key_is(key, PMIX_QUERY_STABLE_ABI_VERSION) ||
           key_is(key, PMIX_QUERY_PROVISIONAL_ABI_VERSION);
}

}  // namespace

namespace {

// The host level of PMIX_QUERY_ATTRIBUTE_SUPPORT lives in the server process (the host registered
// it there); a connected client or tool asks the server, which answers every level of that query.
bool server_answers(const pmix_query_t& q, const char* key) {
    if (!key_is(key, PMIX_QUERY_ATTRIBUTE_SUPPORT) || !data::asks_host_level(q)) return false;
    State& s = state();
    std::lock_guard lock(s.mu);
    return s.conn && !s.conn->closed();
}

}  // namespace

bool answered_locally(const pmix_query_t& q, const char* key) {
    return key != nullptr &&
           (key_is(key, PMIX_QUERY_AVAIL_SERVERS) || key_is(key, PMIX_QUERY_ATTRIBUTE_SUPPORT) ||
            abi_key(key)) &&
           !server_answers(q, key);
}

bool answer_locally(const pmix_query_t& q, const char* key, pmix_info_t* out) {
    if (key_is(key, PMIX_QUERY_ATTRIBUTE_SUPPORT)) return data::answer_attribute_support(q, out);
    if (abi_key(key)) {
        const bool stable = key_is(key, PMIX_QUERY_STABLE_ABI_VERSION);
        load(out, key, stable ? kStableAbi : kProvisionalAbi, PMIX_STRING);
        return true;
    }
    return key_is(key, PMIX_QUERY_AVAIL_SERVERS) && avail_servers(q, out);
}

bool only_abi_keys(const pmix_query_t* queries, std::size_t n) {
    if (queries == nullptr || n == 0) return false;
    for (std::size_t i = 0; i < n; ++i) {
        if (queries[i].keys == nullptr || queries[i].keys[0] == nullptr) return false;
        for (std::size_t k = 0; queries[i].keys[k] != nullptr; ++k) {
            if (!abi_key(queries[i].keys[k])) return false;
        }
    }
    return true;
}

SplitQueries::~SplitQueries() {
    for (auto& i : local) data::info_destruct(&i);
}

void split_queries(const pmix_query_t* queries, std::size_t n, SplitQueries* out) {
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<char*> remote_keys;
        for (std::size_t k = 0; queries[i].keys != nullptr && queries[i].keys[k] != nullptr; ++k) {
            char* key = queries[i].keys[k];
            if (!answered_locally(queries[i], key)) {
                remote_keys.push_back(key);
                continue;
            }
            ++out->local_asked;
            pmix_info_t result;
            if (answer_locally(queries[i], key, &result)) out->local.push_back(result);
        }
        if (remote_keys.empty()) continue;
        remote_keys.push_back(nullptr);
        out->remote_keys.push_back(std::move(remote_keys));
        pmix_query_t q = queries[i];
        out->remote.push_back(q);
    }
    for (std::size_t i = 0; i < out->remote.size(); ++i)
        out->remote[i].keys = out->remote_keys[i].data();
}

wire::Frame query_reply_frame(pmix_status_t status, const pmix_info_t* infos, std::size_t n) {
    proto::Writer w;
    w.status(status).infos(infos, n);
    wire::Frame f;
    f.payload = w.take();
    return f;
}

}  // namespace pmix::client
