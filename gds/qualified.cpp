// gds/qualified.cpp - see qualified.h.
#include "gds/qualified.h"

#include "data/directives.h"
#include "data/value.h"

#include <array>
#include <cstring>

namespace pmix::gds {

namespace {

using data::flag_true;
using data::key_is;

bool number_of(const pmix_value_t& v, std::uint32_t* out) {
    switch (v.type) {
        case PMIX_UINT32:
            *out = v.data.uint32;
            return true;
        case PMIX_UINT16:
            *out = v.data.uint16;
            return true;
        case PMIX_UINT8:
            *out = v.data.uint8;
            return true;
        case PMIX_UINT64:
            *out = static_cast<std::uint32_t>(v.data.uint64);
            return true;
        case PMIX_SIZE:
            *out = static_cast<std::uint32_t>(v.data.size);
            return true;
        case PMIX_INT:
            *out = static_cast<std::uint32_t>(v.data.integer);
            return true;
        case PMIX_INT32:
            *out = static_cast<std::uint32_t>(v.data.int32);
            return true;
        case PMIX_PROC_RANK:
            *out = v.data.rank;
            return true;
        default:
            return false;
    }
}

std::string_view string_value(const pmix_value_t& v) {
    return v.type == PMIX_STRING && v.data.string != nullptr ? std::string_view(v.data.string)
                                                             : std::string_view{};
}

// The Standard's node-level and app-level keys (the ones OpenPMIx files under its node and app
// trackers), for the unqualified fallback.
constexpr std::array kNodeKeys = {
    PMIX_LOCAL_PEERS,      PMIX_LOCAL_SIZE,          PMIX_NODE_SIZE,
    PMIX_LOCALLDR,         PMIX_LOCAL_CPUSETS,       PMIX_AVAIL_PHYS_MEMORY,
    PMIX_HOSTNAME_ALIASES, PMIX_NODE_OVERSUBSCRIBED, PMIX_LOCAL_PROCS};
constexpr std::array kAppKeys = {PMIX_APP_SIZE,     PMIX_APPLDR,        PMIX_APP_ARGV, PMIX_WDIR,
                                 PMIX_APP_MAP_TYPE, PMIX_APP_MAP_REGEX, PMIX_PSET_NAME};

template <std::size_t N>
bool in(const std::array<const char*, N>& keys, std::string_view key) noexcept {
    for (const char* k : keys) {
        if (key == k) return true;
    }
    return false;
}

// A number the requester has: its own key, else its job's.
bool requester_number(StoreReader& r, const pmix_proc_t& who, const char* key, std::uint32_t* out) {
    const std::string_view ns(who.nspace, strnlen(who.nspace, PMIX_MAX_NSLEN));
    pmix_value_t v;
    std::memset(&v, 0, sizeof v);
    bool ok = false;
    if (who.rank < PMIX_RANK_VALID && r.get(ns, Entity::proc(who.rank), key, &v) == PMIX_SUCCESS) {
        ok = number_of(v, out);
        data::value_destruct(&v);
    }
    if (!ok && r.get(ns, Entity::job(), key, &v) == PMIX_SUCCESS) {
        ok = number_of(v, out);
        data::value_destruct(&v);
    }
    return ok;
}

bool requester_host(StoreReader& r, const pmix_proc_t& who, std::string& out) {
    const std::string_view ns(who.nspace, strnlen(who.nspace, PMIX_MAX_NSLEN));
    pmix_value_t v;
    std::memset(&v, 0, sizeof v);
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    if (who.rank < PMIX_RANK_VALID) rc = r.get(ns, Entity::proc(who.rank), PMIX_HOSTNAME, &v);
    if (rc != PMIX_SUCCESS) rc = r.get(ns, Entity::job(), PMIX_HOSTNAME, &v);
    if (rc != PMIX_SUCCESS) return false;
    out = string_value(v);
    data::value_destruct(&v);
    return !out.empty();
}

void own_node(StoreReader& r, std::string_view ns, const pmix_proc_t& who, Places& out) {
    if (requester_host(r, who, out.host)) out.add(ns, Entity::node(std::string_view(out.host)));
}

void own_app(StoreReader& r, std::string_view ns, const pmix_proc_t& who, Places& out) {
    std::uint32_t appnum = 0;
    if (!requester_number(r, who, PMIX_APPNUM, &appnum)) appnum = 0;
    out.add(ns, Entity::app(appnum));
}

}  // namespace

bool is_node_key(std::string_view key) noexcept { return in(kNodeKeys, key); }
bool is_app_key(std::string_view key) noexcept { return in(kAppKeys, key); }

bool is_data_qualifier(const pmix_info_t& i) noexcept {
    return key_is(i, PMIX_NODE_INFO) || key_is(i, PMIX_APP_INFO) || key_is(i, PMIX_JOB_INFO) ||
           key_is(i, PMIX_SESSION_INFO) || key_is(i, PMIX_NODEID) || key_is(i, PMIX_HOSTNAME) ||
           key_is(i, PMIX_APPNUM) || key_is(i, PMIX_NSPACE) || key_is(i, PMIX_SESSION_ID);
}

pmix_status_t parse_qualifiers(const pmix_info_t* info, std::size_t ninfo, Qualifiers& q) {
    q = Qualifiers{};
    bool bad = false;
    for (std::size_t i = 0; info != nullptr && i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        if (key_is(in, PMIX_SESSION_INFO) && flag_true(in)) {
            q.kind = Qualifier::session;  // OpenPMIx tests the session first
        } else if (key_is(in, PMIX_NODE_INFO) && flag_true(in)) {
            if (q.kind == Qualifier::none || q.kind == Qualifier::job) q.kind = Qualifier::node;
        } else if (key_is(in, PMIX_APP_INFO) && flag_true(in)) {
            if (q.kind == Qualifier::none || q.kind == Qualifier::job) q.kind = Qualifier::app;
        } else if (key_is(in, PMIX_JOB_INFO) && flag_true(in)) {
            if (q.kind == Qualifier::none) q.kind = Qualifier::job;
        } else if (key_is(in, PMIX_NODEID) && !q.has_nodeid && q.hostname.empty()) {
            q.has_nodeid = number_of(in.value, &q.nodeid);
            bad = bad || !q.has_nodeid;
        } else if (key_is(in, PMIX_HOSTNAME) && !q.has_nodeid && q.hostname.empty()) {
            q.hostname = string_value(in.value);
            bad = bad || q.hostname.empty();
        } else if (key_is(in, PMIX_APPNUM) && !q.has_appnum) {
            q.has_appnum = number_of(in.value, &q.appnum);
            bad = bad || !q.has_appnum;
        } else if (key_is(in, PMIX_SESSION_ID) && !q.has_session) {
            q.has_session = number_of(in.value, &q.session);
            bad = bad || !q.has_session;
        } else if (key_is(in, PMIX_NSPACE) && q.nspace.empty()) {
            q.nspace = string_value(in.value);
            bad = bad || q.nspace.empty() || q.nspace.size() > PMIX_MAX_NSLEN;
        }
    }
    return bad && q.kind != Qualifier::none ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
}

void qualified_places(StoreReader& r, std::string_view ns, pmix_rank_t rank, const pmix_proc_t& who,
                      std::string_view key, const Qualifiers& q, Places& out) {
    out.count = 0;
    if (rank < PMIX_RANK_VALID) return;  // a process's keys: the qualifiers do not apply
    switch (q.kind) {
        case Qualifier::none:
            if (is_node_key(key)) own_node(r, ns, who, out);
            if (is_app_key(key)) own_app(r, ns, who, out);
            return;
        case Qualifier::node:
            if (q.has_nodeid) {
                out.add(ns, Entity::node(q.nodeid));
            } else if (!q.hostname.empty()) {
                out.add(ns, Entity::node(q.hostname));
            } else {
                own_node(r, ns, who, out);
                out.add(ns, Entity::job());
            }
            return;
        case Qualifier::app:
            // OpenPMIx keeps an app's number beside its array, not in it: PMIX_APPNUM comes from
            // the job level (measured: NOT-FOUND for every app of a two-app job, whose job level
            // has no PMIX_APPNUM; the job's number in a one-app job).
            if (key == PMIX_APPNUM) {
            } else if (q.has_appnum) {
                out.add(ns, Entity::app(q.appnum));
            } else {
                own_app(r, ns, who, out);
            }
            out.add(ns, Entity::job());
            return;
        case Qualifier::job:
            out.add(q.nspace.empty() ? ns : q.nspace, Entity::job());
            return;
        case Qualifier::session: {
            if (!q.has_session) return;
            out.add(ns, Entity::session(q.session));
            std::uint32_t sid = 0;
            const pmix_proc_t job = [&] {
                pmix_proc_t p{};
                std::memcpy(p.nspace, ns.data(), std::min<std::size_t>(ns.size(), PMIX_MAX_NSLEN));
                p.rank = PMIX_RANK_WILDCARD;
                return p;
            }();
            if (q.has_session && requester_number(r, job, PMIX_SESSION_ID, &sid) &&
                sid == q.session) {
                out.add(ns, Entity::job());
            }
            return;
        }
    }
}

}  // namespace pmix::gds
