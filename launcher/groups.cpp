// launcher/groups.cpp - the host's `group` upcall and the group registry of pmixrun.
//
// On one node every member is a local process, so the library has already gathered them: the
// upcall records the group (id -> membership), assigns a context id when asked
// (PMIX_GROUP_ASSIGN_CONTEXT_ID; 1, 2, 3, ... in construct order, never reused by this launcher,
// so unique across all its groups) and answers PMIX_GROUP_CONTEXT_ID and PMIX_GROUP_MEMBERSHIP.
// pmixd: the daemons of the members' nodes first run one collective over the fabric
// (NodeNet::group), which also agrees the context id; then each records and answers the same.
// Destruct removes the record. The registry answers PMIX_QUERY_NUM_GROUPS,
// PMIX_QUERY_GROUP_NAMES and PMIX_QUERY_GROUP_MEMBERSHIP (qualified by PMIX_GROUP_ID).
// Everything runs on the launcher's loop; the upcall only copies and posts.
#include "launcher.h"

#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

struct GroupEntry {
    std::vector<pmix_proc_t> members;
    size_t context_id = 0;
    bool has_context_id = false;
};

// Launcher loop only.
std::map<std::string, GroupEntry> g_groups;
size_t g_next_context_id = 1;

bool flag(const pmix_info_t* info, size_t ninfo, const char* key) {
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strncmp(info[i].key, key, PMIX_MAX_KEYLEN) != 0) continue;
        return info[i].value.type != PMIX_BOOL || info[i].value.data.flag;
    }
    return false;
}

struct GroupAnswer {
    InfoList list;
};

void release_group_answer(void* cbdata) { delete static_cast<GroupAnswer*>(cbdata); }

// The library's PMIX_GROUP_ENDPT_DATA (its members' modex), empty when none.
std::string endpoints_of(const pmix_info_t* info, size_t ninfo) {
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strncmp(info[i].key, PMIX_GROUP_ENDPT_DATA, PMIX_MAX_KEYLEN) == 0 &&
            info[i].value.type == PMIX_BYTE_OBJECT && info[i].value.data.bo.bytes != nullptr)
            return std::string(info[i].value.data.bo.bytes, info[i].value.data.bo.size);
    }
    return {};
}

// This launcher's main namespace as WILDCARD: every rank, by number (the membership a construct
// answers lists processes).
std::vector<pmix_proc_t> listed(const std::vector<pmix_proc_t>& members) {
    std::vector<pmix_proc_t> out;
    for (const pmix_proc_t& p : members) {
        if (p.rank != PMIX_RANK_WILDCARD || g_launcher->nspace != p.nspace) {
            out.push_back(p);
            continue;
        }
        for (int r = 0; r < g_launcher->options.nprocs; ++r) {
            pmix_proc_t one = p;
            one.rank = static_cast<pmix_rank_t>(r);
            out.push_back(one);
        }
    }
    return out;
}

// `context_id`: the id the daemons agreed (pmixd), else 0 and this launcher draws one.
void answer_construct(const std::string& id, std::vector<pmix_proc_t> members, bool wants_id,
                      size_t context_id, const std::string& endpoints, pmix_info_cbfunc_t cbfunc,
                      void* cbdata) {
    GroupEntry entry;
    entry.members = listed(members);
    if (wants_id) {
        entry.context_id = context_id != 0 ? context_id : g_next_context_id++;
        entry.has_context_id = true;
    }
    auto* reply = new GroupAnswer;
    if (entry.has_context_id) {
        reply->list.add(PMIX_GROUP_CONTEXT_ID, &entry.context_id, PMIX_SIZE);
    }
    pmix_data_array_t array{PMIX_PROC, entry.members.size(), entry.members.data()};
    reply->list.add(PMIX_GROUP_MEMBERSHIP, &array, PMIX_DATA_ARRAY);
    if (!endpoints.empty()) {  // every node's, for the library to store (pmixd)
        pmix_byte_object_t bo{const_cast<char*>(endpoints.data()), endpoints.size()};
        reply->list.add(PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT);
    }
    g_groups[id] = std::move(entry);
    if (const pmix_status_t rc = reply->list.convert(); rc != PMIX_SUCCESS) {
        delete reply;
        cbfunc(rc, nullptr, 0, cbdata, nullptr, nullptr);
        return;
    }
    cbfunc(PMIX_SUCCESS, reply->list.info(), reply->list.size(), cbdata, release_group_answer,
           reply);
}

}  // namespace

pmix_status_t host_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                         size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                         pmix_info_cbfunc_t cbfunc, void* cbdata) {
    if (grp == nullptr || (op != PMIX_GROUP_CONSTRUCT && op != PMIX_GROUP_DESTRUCT)) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::string id(grp);
    std::vector<pmix_proc_t> members(procs, procs + nprocs);
    const bool wants_id = flag(directives, ndirs, PMIX_GROUP_ASSIGN_CONTEXT_ID);
    auto finish = [op, id, members, wants_id, cbfunc, cbdata](
                      pmix_status_t status, size_t context_id,
                      const std::string& endpoints) mutable {
        if (status != PMIX_SUCCESS) {
            cbfunc(status, nullptr, 0, cbdata, nullptr, nullptr);
        } else if (op == PMIX_GROUP_DESTRUCT) {
            const bool known = g_groups.erase(id) != 0;
            cbfunc(known ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, nullptr, nullptr);
        } else {
            answer_construct(id, std::move(members), wants_id, context_id, endpoints, cbfunc,
                             cbdata);
        }
    };
    if (g_launcher->remote == nullptr) {  // one node: every member is here already
        g_launcher->queue.post([finish]() mutable { finish(PMIX_SUCCESS, 0, {}); });
        return PMIX_SUCCESS;
    }
    // pmixd: the daemons of the members' nodes agree first (on the fabric's thread), then the
    // loop records and answers.
    return g_launcher->remote->group(
        op, id, members, wants_id, timeout_of(directives, ndirs), endpoints_of(directives, ndirs),
        [finish](pmix_status_t status, size_t context_id, const std::string& endpoints) mutable {
            g_launcher->queue.post([finish, status, context_id, endpoints]() mutable {
                finish(status, context_id, endpoints);
            });
        });
}

bool answer_group_query(const char* key, const pmix_query_t& query, pmix_info_t& out) {
    if (std::strcmp(key, PMIX_QUERY_NUM_GROUPS) == 0) {
        size_t n = g_groups.size();
        PMIx_Info_load(&out, key, &n, PMIX_SIZE);
        return true;
    }
    if (std::strcmp(key, PMIX_QUERY_GROUP_NAMES) == 0) {
        std::vector<char*> names;
        for (auto& [id, entry] : g_groups) names.push_back(const_cast<char*>(id.c_str()));
        pmix_data_array_t array{PMIX_STRING, names.size(), names.data()};
        PMIx_Info_load(&out, key, &array, PMIX_DATA_ARRAY);
        return true;
    }
    if (std::strcmp(key, PMIX_QUERY_GROUP_MEMBERSHIP) != 0) return false;
    for (size_t i = 0; i < query.nqual; ++i) {
        const pmix_info_t& q = query.qualifiers[i];
        if (std::strncmp(q.key, PMIX_GROUP_ID, PMIX_MAX_KEYLEN) != 0 ||
            q.value.type != PMIX_STRING || q.value.data.string == nullptr) {
            continue;
        }
        auto it = g_groups.find(q.value.data.string);
        if (it == g_groups.end()) return false;
        pmix_data_array_t array{PMIX_PROC, it->second.members.size(), it->second.members.data()};
        PMIx_Info_load(&out, key, &array, PMIX_DATA_ARRAY);
        return true;
    }
    return false;
}

}  // namespace pmix::launcher
