// tests/fuzz/fuzz_proto.h - the field sequences of the protocol's messages (wire/proto/protocol.h),
// shared by the harness (fuzz_proto.cpp) and the seed generator: the harness's first byte indexes
// proto_messages().
#pragma once

#include <vector>

namespace pmix::fuzz {

enum class Field {
    status,
    size,
    string,
    scope,
    range,
    proc,
    value,
    procs,
    infos,
    strings,
    statuses,
    pdata,
    apps,
    queries,
    commit_items,
    get_reply,
};

struct ProtoMessage {
    const char* name;
    std::vector<Field> fields;
};

// protocol.h, op by op: the request, then the reply.
inline const std::vector<ProtoMessage>& proto_messages() {
    static const std::vector<ProtoMessage> all = {
        {"finalize", {}},
        {"finalize.reply", {Field::status}},
        {"abort", {Field::status, Field::string, Field::procs}},
        {"commit", {Field::commit_items}},
        {"fence", {Field::procs, Field::infos}},
        {"get", {Field::proc, Field::string, Field::infos}},
        {"get.reply.value", {Field::status, Field::value}},
        {"get.reply.all", {Field::status, Field::infos}},
        {"publish", {Field::infos}},
        {"lookup", {Field::strings, Field::infos}},
        {"lookup.reply", {Field::status, Field::pdata}},
        {"unpublish", {Field::strings, Field::infos}},
        {"register_events", {Field::statuses, Field::infos}},
        {"deregister_events", {Field::statuses}},
        {"notify", {Field::status, Field::proc, Field::range, Field::infos}},
        {"event", {Field::status, Field::proc, Field::infos}},
        {"spawn", {Field::infos, Field::apps}},
        {"spawn.reply", {Field::status, Field::string}},
        {"connect", {Field::procs, Field::infos}},
        {"query", {Field::queries}},
        {"query.reply", {Field::status, Field::infos}},
        {"log", {Field::infos, Field::infos}},
        {"job_control", {Field::procs, Field::infos}},
        {"tool_attach", {Field::infos}},
        {"tool_attach.reply", {Field::status, Field::proc}},
        {"get.reply.either", {Field::get_reply}},
    };
    return all;
}

}  // namespace pmix::fuzz
