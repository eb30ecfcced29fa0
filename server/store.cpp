// server/store.cpp - registration parsing and lookups of the in-process store (see store.h).
#include "server/store.h"

#include "data/value.h"
#include "maps/node_regex.h"

#include <cstring>
#include <string_view>

namespace pmix::server {

// ---- Value -----------------------------------------------------------------------------------

Value::Value() noexcept {
    std::memset(&v_, 0, sizeof v_);
    v_.type = PMIX_UNDEF;
}

Value::Value(const pmix_value_t& v) : Value() {
    if (data::value_xfer(&v_, &v) != PMIX_SUCCESS) {
        data::value_destruct(&v_);
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
Value u16(std::uint16_t x) { return make(&x, PMIX_UINT16); }
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
pmix_status_t parse_proc_data(Namespace& ns, const pmix_value_t& v) {
    std::size_t n = 0;
    const pmix_info_t* e = info_elements(v, &n);
    if (e == nullptr || n == 0 || !is_key(e[0], PMIX_RANK)) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::uint32_t rank = 0;
    if (!as_u32(e[0].value, &rank)) {
        return PMIX_ERR_BAD_PARAM;
    }
    KeyMap& m = ns.ranks[rank];
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

const pmix_value_t* job_value(const Namespace& ns, const char* key) {
    auto it = ns.job.find(key);
    return it == ns.job.end() ? nullptr : &it->second.get();
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

// Derives per-proc and job keys from PMIX_NODE_MAP/PMIX_PROC_MAP when the host did not give them.
pmix_status_t derive_from_maps(Namespace& ns, const std::string& hostname) {
    const pmix_value_t* nm = job_value(ns, PMIX_NODE_MAP);
    const pmix_value_t* pm = job_value(ns, PMIX_PROC_MAP);
    if (nm == nullptr || pm == nullptr || nm->type != PMIX_STRING || pm->type != PMIX_STRING ||
        nm->data.string == nullptr || pm->data.string == nullptr) {
        return PMIX_SUCCESS;
    }
    auto nodes = maps::parse_nodes(nm->data.string);
    auto ppn = maps::parse_ppn(pm->data.string);
    if (!nodes.ok() || !ppn.ok() || nodes.value.size() != ppn.value.size()) {
        return PMIX_ERR_BAD_PARAM;
    }
    const std::size_t here = local_node(nodes.value, hostname, ns.nlocalprocs);
    std::uint32_t nprocs = 0;
    for (std::size_t n = 0; n < nodes.value.size(); ++n) {
        const auto& ranks = ppn.value[n];
        nprocs += static_cast<std::uint32_t>(ranks.size());
        for (std::size_t l = 0; l < ranks.size(); ++l) {
            KeyMap& m = ns.ranks[ranks[l]];
            set_default(m, PMIX_RANK, make(&ranks[l], PMIX_PROC_RANK));
            set_default(m, PMIX_HOSTNAME, str(nodes.value[n]));
            set_default(m, PMIX_NODEID, u32(static_cast<std::uint32_t>(n)));
            set_default(m, PMIX_LOCAL_RANK, u16(static_cast<std::uint16_t>(l)));
            set_default(m, PMIX_NODE_RANK, u16(static_cast<std::uint16_t>(l)));
        }
    }
    set_default(ns.job, PMIX_JOB_SIZE, u32(nprocs));
    set_default(ns.job, PMIX_NUM_NODES, u32(static_cast<std::uint32_t>(nodes.value.size())));
    if (here < nodes.value.size()) {
        const auto& mine = ppn.value[here];
        if (!mine.empty()) {
            set_default(ns.job, PMIX_LOCAL_PEERS, str(join_ranks(mine)));
        }
        set_default(ns.job, PMIX_LOCAL_SIZE, u32(static_cast<std::uint32_t>(mine.size())));
        set_default(ns.job, PMIX_NODEID, u32(static_cast<std::uint32_t>(here)));
        ns.local_ranks.insert(mine.begin(), mine.end());
    }
    return PMIX_SUCCESS;
}

// PMIX_LOCAL_PEERS given without maps: local ranks are its order.
void derive_from_peers(Namespace& ns) {
    const pmix_value_t* lp = job_value(ns, PMIX_LOCAL_PEERS);
    if (lp == nullptr || lp->type != PMIX_STRING || lp->data.string == nullptr) {
        return;
    }
    std::string_view s(lp->data.string);
    std::uint16_t lrank = 0;
    while (!s.empty()) {
        const auto comma = s.find(',');
        const std::string item(s.substr(0, comma));
        s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
        char* end = nullptr;
        const unsigned long r = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0') {
            continue;
        }
        const auto rank = static_cast<pmix_rank_t>(r);
        ns.local_ranks.insert(rank);
        KeyMap& m = ns.ranks[rank];
        set_default(m, PMIX_RANK, make(&rank, PMIX_PROC_RANK));
        set_default(m, PMIX_LOCAL_RANK, u16(lrank));
        set_default(m, PMIX_NODE_RANK, u16(lrank));
        ++lrank;
    }
    set_default(ns.job, PMIX_LOCAL_SIZE, u32(lrank));
}

// Keys every proc has in OpenPMIx even when the host left them out.
void derive_defaults(Namespace& ns, const std::string& hostname) {
    std::uint32_t offset = 0;
    if (const pmix_value_t* o = job_value(ns, PMIX_NPROC_OFFSET)) {
        as_u32(*o, &offset);
    }
    for (auto& [rank, m] : ns.ranks) {
        set_default(m, PMIX_RANK, make(&rank, PMIX_PROC_RANK));
        const pmix_rank_t grank = rank + offset;
        set_default(m, PMIX_GLOBAL_RANK, make(&grank, PMIX_PROC_RANK));
        set_default(m, PMIX_APPNUM, u32(0));
        if (ns.local_ranks.count(rank) != 0) {
            set_default(m, PMIX_HOSTNAME, str(hostname));
        }
    }
    if (!ns.ranks.empty()) {
        set_default(ns.job, PMIX_JOB_SIZE, u32(static_cast<std::uint32_t>(ns.ranks.size())));
    }
    if (const pmix_value_t* js = job_value(ns, PMIX_JOB_SIZE)) {
        set_default(ns.job, PMIX_MAX_PROCS, Value(*js));
    }
    set_default(ns.job, PMIX_JOB_NUM_APPS,
                u32(ns.apps.empty() ? 1 : static_cast<std::uint32_t>(ns.apps.size())));
}

}  // namespace

pmix_status_t parse_registration(Namespace& ns, const pmix_info_t* info, std::size_t ninfo,
                                 const std::string& hostname) {
    for (std::size_t i = 0; i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        pmix_status_t rc = PMIX_SUCCESS;
        if (is_key(in, PMIX_PROC_DATA)) {
            rc = parse_proc_data(ns, in.value);
        } else if (is_key(in, PMIX_APP_INFO_ARRAY)) {
            KeyMap app;
            rc = parse_array(app, in.value);
            std::uint32_t appnum = static_cast<std::uint32_t>(ns.apps.size());
            if (auto it = app.find(PMIX_APPNUM); it != app.end()) {
                as_u32(it->second.get(), &appnum);
            }
            ns.apps[appnum] = std::move(app);
        } else if (is_key(in, PMIX_NODE_INFO_ARRAY)) {
            ns.nodes.emplace_back();
            rc = parse_array(ns.nodes.back(), in.value);
        } else {
            ns.job.insert_or_assign(key_of(in), Value(in.value));
        }
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    if (const pmix_status_t rc = derive_from_maps(ns, hostname); rc != PMIX_SUCCESS) {
        return rc;
    }
    derive_from_peers(ns);
    derive_defaults(ns, hostname);
    return PMIX_SUCCESS;
}

const pmix_value_t* lookup(const Namespace& ns, pmix_rank_t rank, const std::string& key) {
    if (rank != PMIX_RANK_WILDCARD) {
        if (auto r = ns.ranks.find(rank); r != ns.ranks.end()) {
            if (auto k = r->second.find(key); k != r->second.end()) {
                return &k->second.get();
            }
        }
        if (auto r = ns.modex.find(rank); r != ns.modex.end()) {
            if (auto k = r->second.find(key); k != r->second.end()) {
                return &k->second.value.get();
            }
        }
    }
    if (auto k = ns.job.find(key); k != ns.job.end()) {
        return &k->second.get();
    }
    return nullptr;
}

std::vector<std::pair<std::string, Value>> all_keys(const Namespace& ns, pmix_rank_t rank) {
    std::vector<std::pair<std::string, Value>> out;
    if (rank == PMIX_RANK_WILDCARD) {
        for (const auto& [k, v] : ns.job) {
            out.emplace_back(k, v);
        }
        return out;
    }
    if (auto r = ns.ranks.find(rank); r != ns.ranks.end()) {
        for (const auto& [k, v] : r->second) {
            out.emplace_back(k, v);
        }
    }
    if (auto r = ns.modex.find(rank); r != ns.modex.end()) {
        for (const auto& [k, e] : r->second) {
            out.emplace_back(k, e.value);
        }
    }
    return out;
}

}  // namespace pmix::server
