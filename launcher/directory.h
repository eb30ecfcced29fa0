// launcher/directory.h - PMIx_Publish / PMIx_Lookup / PMIx_Unpublish across nodes.
//
// The head keeps the job's one directory (Directory); each pmixd forwards its clients' publish,
// lookup and unpublish upcalls to it over its channel (publish, lookup, unpublish messages,
// channel.h) and hands the directory_reply back to its server (remote_publish.cpp). The head
// never decodes a value: each arrives as one packed pmix_info_t (pack_infos) and goes back to
// the looker as it came.
//
// Rules (those of pmixrun's one-node directory in host.cpp, plus range and timeout):
// - a key is published once in the job: a publish naming a key already there is refused whole
//   with PMIX_ERR_DUPLICATE_KEY (nothing of it is stored);
// - PMIX_RANGE of a publish (default PMIX_RANGE_SESSION) says who may find the value:
//   PMIX_RANGE_PROC_LOCAL the publisher itself, PMIX_RANGE_LOCAL processes of its node,
//   PMIX_RANGE_NAMESPACE its namespace, anything else every process of the job; PMIX_RANGE of a
//   lookup or unpublish limits where to look in the same way;
// - PMIX_PERSISTENCE: PMIX_PERSIST_FIRST_READ removes the value once a lookup returned it,
//   PMIX_PERSIST_PROC when its publisher exits; the others keep it for the job's life;
// - a lookup returns the keys it finds (PMIX_ERR_NOT_FOUND when none); with PMIX_WAIT it waits
//   until every key is there, at most PMIX_TIMEOUT seconds when given (then PMIX_ERR_TIMEOUT),
//   and ends (PMIX_ERR_LOST_CONNECTION) when its caller exits or its node is lost;
// - unpublish removes the caller's own keys (PMIX_ERR_NOT_FOUND for a key it did not publish);
//   with no keys, everything it published.
#pragma once

#include "channel.h"
#include "launcher.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pmix::launcher {

class Directory {
public:
    // How a reply reaches the daemon of node `node` (MessageKind::directory_reply fields).
    using Send = std::function<void(size_t node, const std::vector<std::string>& fields)>;
    explicit Directory(Send send) : send_(std::move(send)) {}

    // A publish, lookup or unpublish from node `node`'s daemon; false for any other message.
    bool take(size_t node, const Message& message);
    void tick(Clock::time_point now);  // waiting lookups past their PMIX_TIMEOUT
    // A process of the job ended: its PMIX_PERSIST_PROC values go, its waiting lookups end.
    void proc_ended(const std::string& nspace, pmix_rank_t rank);
    void node_lost(size_t node);  // the lookups waiting there are dropped (nobody to answer)

    struct Caller {
        std::string nspace;
        pmix_rank_t rank = 0;
        size_t node = 0;
    };

private:
    struct Entry {
        Caller owner;
        pmix_data_range_t range = PMIX_RANGE_SESSION;
        pmix_persistence_t persistence = PMIX_PERSIST_SESSION;
        std::string packed;  // the one pmix_info_t as published
    };
    struct Waiting {
        std::string id;
        Caller caller;
        pmix_data_range_t range = PMIX_RANGE_UNDEF;
        std::vector<std::string> keys;
        bool has_deadline = false;
        Clock::time_point deadline;
    };
    void publish(const Caller& caller, const Message& message);
    void lookup(const Caller& caller, const Message& message);
    void unpublish(const Caller& caller, const Message& message);
    bool visible(const Entry& entry, const Caller& looker, pmix_data_range_t range) const;
    // Answers `lookup` if it may be answered now (`wait`: only once every key is there).
    bool try_answer(const Waiting& lookup, bool wait);
    void retry_waiting();
    void reply(size_t node, const std::string& id, pmix_status_t status,
               std::vector<std::string> values = {});

    Send send_;
    std::map<std::string, Entry> entries_;  // by key
    std::vector<Waiting> waiting_;
};

// pmixd: the publish/lookup/unpublish upcalls that forward to the head (remote_publish.cpp), set
// in the server module when the launcher has a Remote.
void fill_remote_directory(pmix_server_module_t& module);
// The head's directory_reply: the waiting upcall is answered (on the launcher's loop).
void take_directory_reply(const Message& message);
// The head is gone: every upcall still waiting is answered with `status`.
void fail_directory_requests(pmix_status_t status);

}  // namespace pmix::launcher
