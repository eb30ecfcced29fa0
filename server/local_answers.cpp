// server/local_answers.cpp - see local_answers.h.
#include "server/local_answers.h"

#include "server/publish.h"
#include "server/state.h"

#include "base/env_names.h"
#include "data/directives.h"
#include "data/value.h"
#include "gds/qualified.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>
#include <string>

namespace pmix::server {

namespace {

using data::key_is;

using data::find_info;

void load(pmix_info_t* info, const char* key, const void* data, pmix_data_type_t type) {
    std::memset(info, 0, sizeof(*info));
    std::strncpy(info->key, key, PMIX_MAX_KEYLEN);
    data::value_load(&info->value, data, type);
}

std::string hostname_of(const State& st, const Namespace& ns, pmix_rank_t rank) {
    Value h;
    if (read_value(*st.reader, ns.name, rank, PMIX_HOSTNAME, h) == PMIX_SUCCESS &&
        h.get().type == PMIX_STRING && h.get().data.string != nullptr) {
        return h.get().data.string;
    }
    return ns.local_ranks.count(rank) != 0 ? st.hostname : std::string();
}

pmix_proc_state_t state_of(const Client* c) {
    if (c == nullptr) return PMIX_PROC_STATE_UNDEF;
    if (c->conn && !c->conn->closed()) return PMIX_PROC_STATE_CONNECTED;
    if (c->finalized) return PMIX_PROC_STATE_TERMINATED;
    if (c->lost) return PMIX_PROC_STATE_COMM_FAILED;
    return PMIX_PROC_STATE_PREPPED;  // registered, not connected yet
}

// Every rank the registration or the clients name, in rank order.
std::set<pmix_rank_t> ranks_of(const State& st, const Namespace& ns, bool local_only) {
    std::set<pmix_rank_t> out(ns.local_ranks.begin(), ns.local_ranks.end());
    if (!local_only) {
        for (const auto& [first, last] : ns.ranks) {
            for (pmix_rank_t r = first;; ++r) {
                out.insert(r);
                if (r == last) break;
            }
        }
    }
    for (const auto& [key, c] : st.clients) {
        if (key.first == ns.name && !c.tool) out.insert(key.second);
    }
    return out;
}

void proc_table(const State& st, const Namespace& ns, bool local_only,
                std::vector<pmix_proc_info_t>* rows) {
    for (pmix_rank_t r : ranks_of(st, ns, local_only)) {
        pmix_proc_info_t row;
        PMIX_PROC_INFO_CONSTRUCT(&row);
        PMIX_LOAD_PROCID(&row.proc, ns.name.c_str(), r);
        auto c = st.clients.find({ns.name, r});
        const Client* client = c == st.clients.end() ? nullptr : &c->second;
        const std::string host = hostname_of(st, ns, r);
        row.hostname = host.empty() ? nullptr : strdup(host.c_str());
        row.pid = client != nullptr ? client->pid : 0;
        row.state = state_of(client);
        rows->push_back(row);
    }
}

const char* nspace_qualifier(const pmix_query_t& q) {
    const pmix_info_t* ns = find_info(q.qualifiers, q.nqual, PMIX_NSPACE);
    return ns != nullptr && ns->value.type == PMIX_STRING ? ns->value.data.string : nullptr;
}

// PMIX_QUERY_NUM_PSETS (size_t), PMIX_QUERY_PSET_NAMES (comma-separated, in definition order,
// as OpenPMIx's reference host answers) and PMIX_QUERY_PSET_MEMBERSHIP (PMIX_PROC array of the
// set named by the PMIX_PSET_NAME qualifier).
bool answer_pset(const State& st, const pmix_query_t& q, const char* key, pmix_info_t* out) {
    if (key_is(key, PMIX_QUERY_NUM_PSETS)) {
        const std::size_t n = st.psets.sets.size();
        load(out, key, &n, PMIX_SIZE);
        return true;
    }
    if (key_is(key, PMIX_QUERY_PSET_NAMES)) {
        std::string all;
        for (const auto& set : st.psets.sets) all += (all.empty() ? "" : ",") + set.name;
        load(out, key, all.c_str(), PMIX_STRING);
        return true;
    }
    if (!key_is(key, PMIX_QUERY_PSET_MEMBERSHIP)) return false;
    const char* name = data::string_of(q.qualifiers, q.nqual, PMIX_PSET_NAME);
    const ProcessSet* set = name != nullptr ? st.psets.find(name) : nullptr;
    if (set == nullptr) return false;
    pmix_data_array_t darray{PMIX_PROC, set->members.size(),
                             const_cast<pmix_proc_t*>(set->members.data())};
    load(out, key, &darray, PMIX_DATA_ARRAY);
    return true;
}

// PMIX_LOCAL_PROCS of the node named by PMIX_NODEID or PMIX_HOSTNAME (default: this server's):
// the PMIX_LOCAL_PEERS each registered namespace (or the PMIX_NSPACE one) has for that node in its
// registered node array (PMIX_NODE_INFO_ARRAY; this node's also from the job level), as one
// PMIX_PROC array. False when no namespace knows the node.
bool local_procs(const State& st, const pmix_query_t& q, pmix_info_t* out) {
    gds::Qualifiers quals;
    if (gds::parse_qualifiers(q.qualifiers, q.nqual, quals) != PMIX_SUCCESS) return false;
    quals.kind = gds::Qualifier::node;
    if (!quals.has_nodeid && quals.hostname.empty()) quals.hostname = st.hostname;
    const char* want = nspace_qualifier(q);
    std::vector<pmix_proc_t> procs;
    bool found = false;
    for (const auto& [name, ns] : st.namespaces) {
        if (!ns.registered || (want != nullptr && name != want)) continue;
        pmix_proc_t requester{};
        std::strncpy(requester.nspace, name.c_str(), PMIX_MAX_NSLEN);
        requester.rank = PMIX_RANK_WILDCARD;
        Value peers;
        if (read_qualified(*st.reader, name, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, quals, requester,
                           peers) != PMIX_SUCCESS ||
            peers.get().type != PMIX_STRING || peers.get().data.string == nullptr) {
            continue;
        }
        found = true;
        std::stringstream list(peers.get().data.string);
        for (std::string rank; std::getline(list, rank, ',');) {
            if (rank.empty()) continue;
            pmix_proc_t& p = procs.emplace_back(requester);
            p.rank = static_cast<pmix_rank_t>(std::strtoul(rank.c_str(), nullptr, 10));
        }
    }
    if (!found) return false;
    pmix_data_array_t darray{PMIX_PROC, procs.size(), procs.empty() ? nullptr : procs.data()};
    load(out, PMIX_LOCAL_PROCS, &darray, PMIX_DATA_ARRAY);
    return true;
}

constexpr const char* kAnsweredKeys = PMIX_QUERY_NAMESPACES
    "," PMIX_QUERY_PROC_TABLE "," PMIX_QUERY_LOCAL_PROC_TABLE "," PMIX_QUERY_NUM_PSETS
    "," PMIX_QUERY_PSET_NAMES "," PMIX_QUERY_PSET_MEMBERSHIP "," PMIX_LOCAL_PROCS
    "," PMIX_QUERY_SUPPORTED_KEYS;

bool is_answered_key(const char* key) {
    std::stringstream list(kAnsweredKeys);
    for (std::string k; std::getline(list, k, ',');) {
        if (key_is(key, k.c_str())) return true;
    }
    return false;
}

bool answer_one(const State& st, const pmix_query_t& q, const char* key, pmix_info_t* out) {
    if (answer_pset(st, q, key, out)) return true;
    if (key_is(key, PMIX_LOCAL_PROCS)) return local_procs(st, q, out);
    if (key_is(key, PMIX_QUERY_SUPPORTED_KEYS)) {
        load(out, key, kAnsweredKeys, PMIX_STRING);
        return true;
    }
    if (key_is(key, PMIX_QUERY_NAMESPACES)) {
        std::string all;
        for (const auto& [name, ns] : st.namespaces) {
            if (!ns.registered) continue;
            all += (all.empty() ? "" : ",") + name;
        }
        load(out, key, all.c_str(), PMIX_STRING);
        return true;
    }
    const bool local = key_is(key, PMIX_QUERY_LOCAL_PROC_TABLE);
    if (!local && !key_is(key, PMIX_QUERY_PROC_TABLE)) return false;
    const char* want = nspace_qualifier(q);
    std::vector<pmix_proc_info_t> rows;
    for (const auto& [name, ns] : st.namespaces) {
        if (ns.registered && (want == nullptr || name == want)) proc_table(st, ns, local, &rows);
    }
    if (want != nullptr && !st.namespaces.contains(want)) return false;
    pmix_data_array_t darray{PMIX_PROC_INFO, rows.size(), rows.empty() ? nullptr : rows.data()};
    load(out, key, &darray, PMIX_DATA_ARRAY);
    for (auto& r : rows) PMIX_PROC_INFO_DESTRUCT(&r);
    return true;
}

}  // namespace

pmix_status_t answer_query(const State& st, const pmix_query_t* queries, std::size_t n,
                           std::vector<pmix_info_t>* out) {
    std::size_t asked = 0, answered = 0;
    bool known = false;  // a key the library answers was asked (its data may be missing)
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; queries[i].keys != nullptr && queries[i].keys[k] != nullptr; ++k) {
            ++asked;
            known = known || is_answered_key(queries[i].keys[k]);
            pmix_info_t info;
            if (answer_one(st, queries[i], queries[i].keys[k], &info)) {
                out->push_back(info);
                ++answered;
            }
        }
    }
    if (answered == 0) return known ? PMIX_ERR_NOT_FOUND : PMIX_ERR_NOT_SUPPORTED;
    return answered == asked ? PMIX_SUCCESS : PMIX_QUERY_PARTIAL_SUCCESS;
}

// ---- log --------------------------------------------------------------------------------------

namespace {

std::string text_of(const pmix_value_t& v) {
    if (v.type == PMIX_STRING) return v.data.string != nullptr ? v.data.string : "";
    std::string out;
    if (data::print(out, nullptr, &v, PMIX_VALUE) != PMIX_SUCCESS) out = "(unprintable)";
    return out;
}

// RFC 3164 datagram to the local syslog socket (what syslog(3) sends), so that the path can be
// pointed elsewhere for tests and the outcome is known (syslog(3) reports nothing).
bool send_syslog(int priority, const std::string& line) {
    const char* path = std::getenv(env::kSyslogSocket);
    if (path == nullptr || *path == '\0') path = "/dev/log";
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (std::strlen(path) >= sizeof(addr.sun_path)) return false;
    std::strncpy(addr.sun_path, path, sizeof(addr.sun_path) - 1);
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const std::string msg =
        "<" + std::to_string(priority) + ">pmix[" + std::to_string(::getpid()) + "]: " + line;
    const bool ok =
        ::sendto(fd, msg.data(), msg.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&addr),
                 sizeof(addr)) == static_cast<ssize_t>(msg.size());
    ::close(fd);
    return ok;
}

std::string stamp(const pmix_info_t* dirs, std::size_t ndirs) {
    std::time_t when = 0;
    if (const pmix_info_t* t = find_info(dirs, ndirs, PMIX_LOG_TIMESTAMP);
        t != nullptr && t->value.type == PMIX_TIME) {
        when = t->value.data.time;
    } else if (data::info_true(dirs, ndirs, PMIX_LOG_GENERATE_TIMESTAMP)) {
        when = std::time(nullptr);
    }
    if (when == 0) return {};
    char buf[64];
    std::tm tm{};
    ::localtime_r(&when, &tm);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S ", &tm);
    return buf;
}

// One entry to its channel; false when the channel is not one the library serves.
bool write_entry(const pmix_info_t& entry, const std::string& prefix, int priority) {
    const std::string line = prefix + text_of(entry.value);
    if (key_is(entry.key, PMIX_LOG_STDOUT) || key_is(entry.key, PMIX_LOG_STDERR)) {
        FILE* stream = key_is(entry.key, PMIX_LOG_STDOUT) ? stdout : stderr;
        std::fprintf(stream, "%s\n", line.c_str());
        std::fflush(stream);
        return true;
    }
    if (key_is(entry.key, PMIX_LOG_SYSLOG) || key_is(entry.key, PMIX_LOG_LOCAL_SYSLOG) ||
        key_is(entry.key, PMIX_LOG_GLOBAL_SYSLOG)) {
        return send_syslog(priority, line);
    }
    return false;
}

}  // namespace

pmix_status_t write_log(const pmix_proc_t& source, const pmix_info_t* data, std::size_t ndata,
                        const pmix_info_t* dirs, std::size_t ndirs) {
    int priority = 8 /* LOG_USER */ | 6 /* LOG_INFO */;
    if (const pmix_info_t* p = find_info(dirs, ndirs, PMIX_LOG_SYSLOG_PRI);
        p != nullptr && p->value.type == PMIX_INT) {
        priority = 8 | (p->value.data.integer & 7);
    }
    std::string prefix = stamp(dirs, ndirs);
    if (data::info_true(dirs, ndirs, PMIX_LOG_TAG_OUTPUT)) {
        prefix = "[" + std::string(source.nspace, strnlen(source.nspace, PMIX_MAX_NSLEN)) + "," +
                 std::to_string(source.rank) + "] " + prefix;
    }
    const bool once = data::info_true(dirs, ndirs, PMIX_LOG_ONCE);
    std::size_t done = 0;
    for (std::size_t i = 0; i < ndata; ++i) {
        if (write_entry(data[i], prefix, priority)) {
            ++done;
            if (once) return PMIX_SUCCESS;  // the first channel that works is enough
        }
    }
    if (done == 0) return PMIX_ERR_NOT_SUPPORTED;
    return done == ndata ? PMIX_SUCCESS : PMIX_ERR_PARTIAL_SUCCESS;
}

}  // namespace pmix::server
