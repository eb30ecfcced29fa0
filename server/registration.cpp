// server/registration.cpp - register_nspace's info parsed, and written into the store rank by
// rank (registration.h).
#include "server/registration.h"

#include "server/publish.h"

#include "gds/store.h"

#include "data/value.h"
#include "exec/log.h"
#include "maps/node_regex.h"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace pmix::server {

// ---- Value -----------------------------------------------------------------------------------

Value::Value() noexcept {
    std::memset(&v_, 0, sizeof v_);
    v_.type = PMIX_UNDEF;
}

Value::Value(const pmix_value_t& v) : Value() {
    if (const pmix_status_t rc = data::value_xfer(&v_, &v); rc != PMIX_SUCCESS) {
        data::value_destruct(&v_);
        // A host's value we cannot copy (not a PMIx data type, or out of memory) would otherwise
        // turn silently into an empty one.
        exec::log_error("pmix-server", "a value of data type " + std::to_string(v.type) +
                                           " could not be copied (status " + std::to_string(rc) +
                                           "); kept as an empty value");
    }
}

Value::Value(const Value& o) : Value(o.v_) {}

Value& Value::operator=(const Value& o) {
    if (this != &o) {
        data::value_destruct(&v_);
        if (data::value_xfer(&v_, &o.v_) != PMIX_SUCCESS) {
            data::value_destruct(&v_);
        }
    }
    return *this;
}

Value::~Value() { data::value_destruct(&v_); }

pmix_value_t* Value::reset() noexcept {
    data::value_destruct(&v_);
    std::memset(&v_, 0, sizeof v_);
    v_.type = PMIX_UNDEF;
    return &v_;
}

namespace {

std::string key_of(const pmix_info_t& i) {
    return std::string(i.key, strnlen(i.key, PMIX_MAX_KEYLEN + 1));
}

bool is_key(const pmix_info_t& i, const char* k) {
    return std::strncmp(i.key, k, PMIX_MAX_KEYLEN) == 0;
}

Value make(const void* data, pmix_data_type_t type) {
    pmix_value_t v;
    std::memset(&v, 0, sizeof v);
    data::value_load(&v, data, type);
    Value out(v);
    data::value_destruct(&v);
    return out;
}

Value u32(std::uint32_t x) { return make(&x, PMIX_UINT32); }
Value str(const std::string& s) { return make(s.c_str(), PMIX_STRING); }

void set_default(KeyMap& m, const char* key, Value v) { m.try_emplace(key, std::move(v)); }

const pmix_info_t* info_elements(const pmix_value_t& v, std::size_t* n) {
    *n = 0;
    if (v.type != PMIX_DATA_ARRAY || v.data.darray == nullptr || v.data.darray->type != PMIX_INFO) {
        return nullptr;
    }
    *n = v.data.darray->size;
    return static_cast<const pmix_info_t*>(v.data.darray->array);
}

bool as_u32(const pmix_value_t& v, std::uint32_t* out) {
    switch (v.type) {
        case PMIX_UINT32:
            *out = v.data.uint32;
            return true;
        case PMIX_PROC_RANK:
            *out = v.data.rank;
            return true;
        case PMIX_UINT16:
            *out = v.data.uint16;
            return true;
        case PMIX_INT:
            *out = static_cast<std::uint32_t>(v.data.integer);
            return true;
        case PMIX_UINT64:
            *out = static_cast<std::uint32_t>(v.data.uint64);
            return true;
        case PMIX_SIZE:
            *out = static_cast<std::uint32_t>(v.data.size);
            return true;
        default:
            return false;
    }
}

// PMIX_PROC_DATA: [RANK, key...]; the rank must come first.
pmix_status_t parse_proc_data(Registration& reg, const pmix_value_t& v) {
    std::size_t n = 0;
    const pmix_info_t* e = info_elements(v, &n);
    if (e == nullptr || n == 0 || !is_key(e[0], PMIX_RANK)) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::uint32_t rank = 0;
    if (!as_u32(e[0].value, &rank)) {
        return PMIX_ERR_BAD_PARAM;
    }
    KeyMap& m = reg.given[rank];
    for (std::size_t i = 0; i < n; ++i) {
        m.insert_or_assign(key_of(e[i]), Value(e[i].value));
    }
    return PMIX_SUCCESS;
}

pmix_status_t parse_array(KeyMap& m, const pmix_value_t& v) {
    std::size_t n = 0;
    const pmix_info_t* e = info_elements(v, &n);
    if (e == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (std::size_t i = 0; i < n; ++i) {
        m.insert_or_assign(key_of(e[i]), Value(e[i].value));
    }
    return PMIX_SUCCESS;
}

// PMIX_SESSION_INFO_ARRAY: PMIX_SESSION_ID names the session (the Standard requires it); the
// array's other keys are that session's.
pmix_status_t parse_session(Registration& reg, const pmix_value_t& v) {
    KeyMap session;
    if (const pmix_status_t rc = parse_array(session, v); rc != PMIX_SUCCESS) return rc;
    std::uint32_t id = 0;
    auto it = session.find(PMIX_SESSION_ID);
    if (it == session.end() || !as_u32(it->second.get(), &id)) return PMIX_ERR_BAD_PARAM;
    for (auto& [key, value] : session) reg.sessions[id].insert_or_assign(key, value);
    return PMIX_SUCCESS;
}

const pmix_value_t* job_value(const Registration& reg, const char* key) {
    auto it = reg.job.find(key);
    return it == reg.job.end() ? nullptr : &it->second.get();
}

std::string join_ranks(const std::vector<pmix_rank_t>& r) {
    std::string s;
    for (std::size_t i = 0; i < r.size(); ++i) {
        s += (i ? "," : "") + std::to_string(r[i]);
    }
    return s;
}

// The local node of a map: the one named like this host; a one-node map is local anyway unless
// the host said no process of the job runs here (nlocalprocs 0). Open MPI registers every job
// on every daemon, so a job spawned onto another node arrives here as a one-node map of that
// node; taking it for local made this server wait for commits that never come here instead of
// asking the host for the data (MPI_Comm_spawn across two nodes failed "Unreachable").
std::size_t local_node(const std::vector<std::string>& nodes, const std::string& hostname,
                       int nlocalprocs) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i] == hostname) {
            return i;
        }
    }
    return nodes.size() == 1 && nlocalprocs != 0 ? 0 : nodes.size();
}

// PMIX_NODE_MAP/PMIX_PROC_MAP: rank facts for every rank they place, and the job-level keys
// the host did not give.
pmix_status_t parse_maps(Registration& reg) {
    const pmix_value_t* nm = job_value(reg, PMIX_NODE_MAP);
    const pmix_value_t* pm = job_value(reg, PMIX_PROC_MAP);
    if (nm == nullptr || pm == nullptr || nm->type != PMIX_STRING || pm->type != PMIX_STRING ||
        nm->data.string == nullptr || pm->data.string == nullptr) {
        return PMIX_SUCCESS;
    }
    auto nodes = maps::parse_nodes(nm->data.string);
    auto ppn = maps::parse_ppn(pm->data.string);
    if (!nodes.ok() || !ppn.ok() || nodes.value.size() != ppn.value.size()) {
        return PMIX_ERR_BAD_PARAM;
    }
    const std::size_t here = local_node(nodes.value, reg.hostname, reg.nlocalprocs);
    std::size_t nprocs = 0;
    for (const auto& ranks : ppn.value) nprocs += ranks.size();
    reg.ranks.reserve(reg.ranks.size() + nprocs);
    for (std::size_t n = 0; n < ppn.value.size(); ++n) {
        const auto& ranks = ppn.value[n];
        for (std::size_t l = 0; l < ranks.size(); ++l) {
            RankFacts f;
            f.rank = ranks[l];
            f.node = static_cast<std::uint32_t>(n);
            f.map_local = static_cast<std::uint32_t>(l);
            reg.ranks.push_back(f);
        }
    }
    set_default(reg.job, PMIX_JOB_SIZE, u32(static_cast<std::uint32_t>(nprocs)));
    set_default(reg.job, PMIX_NUM_NODES, u32(static_cast<std::uint32_t>(nodes.value.size())));
    if (here < nodes.value.size()) {
        const auto& mine = ppn.value[here];
        if (!mine.empty()) {
            set_default(reg.job, PMIX_LOCAL_PEERS, str(join_ranks(mine)));
        }
        set_default(reg.job, PMIX_LOCAL_SIZE, u32(static_cast<std::uint32_t>(mine.size())));
        set_default(reg.job, PMIX_NODEID, u32(static_cast<std::uint32_t>(here)));
        reg.local_ranks.insert(mine.begin(), mine.end());
    }
    reg.map_nodes = std::move(nodes.value);
    return PMIX_SUCCESS;
}

// PMIX_LOCAL_PEERS (with or without maps): local ranks are its order.
void parse_peers(Registration& reg) {
    const pmix_value_t* lp = job_value(reg, PMIX_LOCAL_PEERS);
    if (lp == nullptr || lp->type != PMIX_STRING || lp->data.string == nullptr) {
        return;
    }
    std::string_view s(lp->data.string);
    std::uint32_t lrank = 0;
    while (!s.empty()) {
        const auto comma = s.find(',');
        const std::string item(s.substr(0, comma));
        s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
        char* end = nullptr;
        const unsigned long r = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0') {
            continue;
        }
        RankFacts f;
        f.rank = static_cast<pmix_rank_t>(r);
        f.peer_local = lrank++;
        reg.local_ranks.insert(f.rank);
        reg.ranks.push_back(f);
    }
    set_default(reg.job, PMIX_LOCAL_SIZE, u32(lrank));
}

// Sorts the rank facts and folds the entries of one rank into one: the maps' facts come first
// in the vector and win, as they did when each source filled in only the keys still missing.
void merge_rank_facts(Registration& reg) {
    for (const auto& [rank, keys] : reg.given) {
        RankFacts f;
        f.rank = rank;
        f.given = true;
        reg.ranks.push_back(f);
    }
    std::stable_sort(reg.ranks.begin(), reg.ranks.end(),
                     [](const RankFacts& a, const RankFacts& b) { return a.rank < b.rank; });
    std::size_t out = 0;
    for (std::size_t i = 0; i < reg.ranks.size(); ++i) {
        const RankFacts& f = reg.ranks[i];
        if (out > 0 && reg.ranks[out - 1].rank == f.rank) {
            RankFacts& m = reg.ranks[out - 1];
            if (m.node == RankFacts::kNone && f.node != RankFacts::kNone) {
                m.node = f.node;
                m.map_local = f.map_local;
            }
            if (m.peer_local == RankFacts::kNone) m.peer_local = f.peer_local;
            m.given = m.given || f.given;
        } else {
            reg.ranks[out++] = f;
        }
    }
    reg.ranks.resize(out);
    reg.ranks.shrink_to_fit();
}

// Job-level keys every job has in OpenPMIx even when the host left them out.
void derive_job_defaults(Registration& reg) {
    if (!reg.ranks.empty()) {
        set_default(reg.job, PMIX_JOB_SIZE, u32(static_cast<std::uint32_t>(reg.ranks.size())));
    }
    if (const pmix_value_t* js = job_value(reg, PMIX_JOB_SIZE)) {
        set_default(reg.job, PMIX_MAX_PROCS, Value(*js));
    }
    set_default(reg.job, PMIX_JOB_NUM_APPS,
                u32(reg.apps.empty() ? 1 : static_cast<std::uint32_t>(reg.apps.size())));
}

pmix_status_t parse_one(Registration& reg, const pmix_info_t& in) {
    if (is_key(in, PMIX_PROC_DATA)) {
        return parse_proc_data(reg, in.value);
    }
    if (is_key(in, PMIX_APP_INFO_ARRAY)) {
        KeyMap app;
        const pmix_status_t rc = parse_array(app, in.value);
        std::uint32_t appnum = static_cast<std::uint32_t>(reg.apps.size());
        if (auto it = app.find(PMIX_APPNUM); it != app.end()) {
            as_u32(it->second.get(), &appnum);
        }
        reg.apps[appnum] = std::move(app);
        return rc;
    }
    if (is_key(in, PMIX_NODE_INFO_ARRAY)) {
        reg.nodes.emplace_back();
        return parse_array(reg.nodes.back(), in.value);
    }
    if (is_key(in, PMIX_SESSION_INFO_ARRAY)) {
        return parse_session(reg, in.value);
    }
    reg.job.insert_or_assign(key_of(in), Value(in.value));
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t parse_registration(Registration& reg, const pmix_info_t* info, std::size_t ninfo) {
    for (std::size_t i = 0; i < ninfo; ++i) {
        if (const pmix_status_t rc = parse_one(reg, info[i]); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    if (const pmix_status_t rc = parse_maps(reg); rc != PMIX_SUCCESS) {
        return rc;
    }
    parse_peers(reg);
    merge_rank_facts(reg);
    derive_job_defaults(reg);
    return PMIX_SUCCESS;
}

RankRuns rank_runs(const Registration& reg) {
    RankRuns runs;
    for (const RankFacts& f : reg.ranks) {
        if (!runs.empty() && runs.back().second + 1 == f.rank) {
            runs.back().second = f.rank;
        } else {
            runs.emplace_back(f.rank, f.rank);
        }
    }
    return runs;
}

namespace {

pmix_status_t put_all(gds::StoreWriter& w, const std::string& ns, const gds::Entity& e,
                      const KeyMap& keys) {
    for (const auto& [key, value] : keys) {
        if (pmix_status_t rc =
                tolerate_unstorable(w.put(ns, e, key, value.get()), key, value.get().type);
            rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

// Node arrays are named by PMIX_NODEID (else their position) and aliased by PMIX_HOSTNAME.
pmix_status_t put_nodes(gds::StoreWriter& w, const Registration& reg) {
    for (std::size_t i = 0; i < reg.nodes.size(); ++i) {
        const KeyMap& node = reg.nodes[i];
        std::uint32_t id = static_cast<std::uint32_t>(i);
        if (auto it = node.find(PMIX_NODEID); it != node.end()) as_u32(it->second.get(), &id);
        if (pmix_status_t rc = put_all(w, reg.name, gds::Entity::node(id), node);
            rc != PMIX_SUCCESS) {
            return rc;
        }
        auto host = node.find(PMIX_HOSTNAME);
        if (host != node.end() && host->second.get().type == PMIX_STRING &&
            host->second.get().data.string != nullptr && *host->second.get().data.string) {
            if (pmix_status_t rc = w.alias_node(reg.name, host->second.get().data.string, id);
                rc != PMIX_SUCCESS) {
                return rc;
            }
        }
    }
    return PMIX_SUCCESS;
}

pmix_value_t scalar(pmix_data_type_t type, std::uint32_t x) {
    pmix_value_t v;
    std::memset(&v, 0, sizeof v);
    v.type = type;
    if (type == PMIX_UINT16) {
        v.data.uint16 = static_cast<std::uint16_t>(x);
    } else {
        v.data.uint32 = x;  // PMIX_UINT32, PMIX_PROC_RANK
    }
    return v;
}

// One rank's keys: those derived from the maps, PMIX_LOCAL_PEERS and the defaults (where the
// host gave no value of its own), then the host's PMIX_PROC_DATA.
class RankWriter {
public:
    RankWriter(gds::StoreWriter& w, const Registration& reg) : w_(w), reg_(reg) {
        if (const pmix_value_t* o = job_value(reg, PMIX_NPROC_OFFSET)) as_u32(*o, &offset_);
    }

    pmix_status_t write(const RankFacts& f) {
        given_ = f.given ? &reg_.given.at(f.rank) : nullptr;
        entity_ = gds::Entity::proc(f.rank);
        pmix_status_t rc = put(PMIX_RANK, scalar(PMIX_PROC_RANK, f.rank));
        const char* host = f.node != RankFacts::kNone            ? reg_.map_nodes[f.node].c_str()
                           : reg_.local_ranks.count(f.rank) != 0 ? reg_.hostname.c_str()
                                                                 : nullptr;
        if (rc == PMIX_SUCCESS && host != nullptr) {
            pmix_value_t v = scalar(PMIX_STRING, 0);
            v.data.string = const_cast<char*>(host);
            rc = put(PMIX_HOSTNAME, v);
        }
        if (rc == PMIX_SUCCESS && f.node != RankFacts::kNone) {
            rc = put(PMIX_NODEID, scalar(PMIX_UINT32, f.node));
        }
        const std::uint32_t local = f.node != RankFacts::kNone ? f.map_local : f.peer_local;
        if (rc == PMIX_SUCCESS && local != RankFacts::kNone) {
            rc = put(PMIX_LOCAL_RANK, scalar(PMIX_UINT16, local));
            rc = rc != PMIX_SUCCESS ? rc : put(PMIX_NODE_RANK, scalar(PMIX_UINT16, local));
        }
        rc = rc != PMIX_SUCCESS ? rc
                                : put(PMIX_GLOBAL_RANK, scalar(PMIX_PROC_RANK, f.rank + offset_));
        rc = rc != PMIX_SUCCESS ? rc : put(PMIX_APPNUM, scalar(PMIX_UINT32, 0));
        if (rc == PMIX_SUCCESS && given_ != nullptr) rc = put_all(w_, reg_.name, entity_, *given_);
        return rc;
    }

private:
    pmix_status_t put(const char* key, const pmix_value_t& v) {
        if (given_ != nullptr && given_->count(key) != 0) return PMIX_SUCCESS;  // the host's wins
        return tolerate_unstorable(w_.put(reg_.name, entity_, key, v), key, v.type);
    }

    gds::StoreWriter& w_;
    const Registration& reg_;
    std::uint32_t offset_ = 0;
    const KeyMap* given_ = nullptr;
    gds::Entity entity_;
};

pmix_status_t stage_registration(gds::StoreWriter& w, const Registration& reg) {
    pmix_status_t rc = w.begin_namespace(reg.name);
    rc = rc != PMIX_SUCCESS ? rc : put_all(w, reg.name, gds::Entity::job(), reg.job);
    for (auto it = reg.apps.begin(); rc == PMIX_SUCCESS && it != reg.apps.end(); ++it) {
        rc = put_all(w, reg.name, gds::Entity::app(it->first), it->second);
    }
    for (auto it = reg.sessions.begin(); rc == PMIX_SUCCESS && it != reg.sessions.end(); ++it) {
        rc = put_all(w, reg.name, gds::Entity::session(it->first), it->second);
    }
    rc = rc != PMIX_SUCCESS ? rc : put_nodes(w, reg);
    RankWriter ranks(w, reg);
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < reg.ranks.size(); ++i) {
        if (reg.ranks[i].rank < PMIX_RANK_VALID) rc = ranks.write(reg.ranks[i]);
    }
    return rc;
}

}  // namespace

pmix_status_t publish_registration(gds::StoreWriter& w, const Registration& reg) {
    return commit_or_log(w, stage_registration(w, reg), "namespace " + reg.name);
}

}  // namespace pmix::server
