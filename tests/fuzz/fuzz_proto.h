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
    byte_object,      // one PMIX_BYTE_OBJECT, no count (a credential)
    info,             // one PMIX_INFO, no count (a monitor)
    alloc_directive,  // one PMIX_ALLOC_DIRECTIVE
    uint8,            // one PMIX_UINT8 (a fabric operation)
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
        {"group_construct", {Field::string, Field::procs, Field::infos}},
        {"group_construct.reply", {Field::status, Field::infos}},
        {"group_destruct", {Field::string, Field::infos}},
        {"group_join", {Field::string, Field::proc, Field::size, Field::infos}},
        {"get_credential", {Field::infos}},
        {"get_credential.reply", {Field::status, Field::byte_object, Field::infos}},
        {"validate_credential", {Field::byte_object, Field::infos}},
        {"monitor", {Field::info, Field::status, Field::infos}},
        {"allocate", {Field::alloc_directive, Field::infos}},
        {"fabric", {Field::uint8, Field::infos}},
    };
    return all;
}

}  // namespace pmix::fuzz
