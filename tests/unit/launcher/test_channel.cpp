// The head <-> daemon messages (launcher/channel.h): the kinds' wire bytes, framing over a pipe,
// a broken stream, and the job message's encoding.
#include "channel.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <csignal>

#include <string>
#include <vector>

namespace pmix::launcher {
namespace {

// The bytes are the protocol between a head and daemons of other builds: they never change.
TEST(MessageKind, WireBytes) {
    // clang-format off: two kinds a line, as they were written
    const std::vector<std::pair<MessageKind, char>> expected = {
        {MessageKind::address, 'A'},       {MessageKind::connected, 'C'},
        {MessageKind::finalized, 'F'},     {MessageKind::exited, 'X'},
        {MessageKind::output, 'O'},        {MessageKind::failed, 'E'},
        {MessageKind::done, 'D'},          {MessageKind::job, 'J'},
        {MessageKind::kill, 'K'},          {MessageKind::timeout, 'T'},
        {MessageKind::node_lost, 'L'},     {MessageKind::quit, 'Q'},
        {MessageKind::event, 'N'},         {MessageKind::signal, 'S'},
        {MessageKind::stdin_data, 'I'},    {MessageKind::stdin_taken, 'W'},
        {MessageKind::publish, 'p'},       {MessageKind::lookup, 'l'},
        {MessageKind::unpublish, 'u'},     {MessageKind::directory_reply, 'y'},
        {MessageKind::spawn, 's'},         {MessageKind::spawn_part, 'z'},
        {MessageKind::spawn_started, 'k'}, {MessageKind::spawn_reply, 'r'},
        {MessageKind::connect, 'c'},       {MessageKind::connect_reply, 'v'},
    };
    // clang-format on
    for (const auto& [kind, byte] : expected) {
        EXPECT_EQ(wire_byte(kind), byte) << message_kind_name(kind);
        EXPECT_EQ(message_kind(byte), kind) << byte;
    }
    EXPECT_FALSE(message_kind('?').has_value());
    EXPECT_FALSE(message_kind('\0').has_value());
}

struct Pipe {
    int fds[2] = {-1, -1};
    Pipe() { EXPECT_EQ(::pipe(fds), 0); }
    ~Pipe() {
        for (int fd : fds)
            if (fd >= 0) ::close(fd);
    }
};

TEST(Channel, RoundTripOverAPipe) {
    Pipe pipe;
    Channel sender(pipe.fds[0], pipe.fds[1]);
    Channel receiver(pipe.fds[0], -1);
    const std::string binary("\0\x01\xff", 3);
    ASSERT_TRUE(sender.send(MessageKind::output, {"3", "1", "hello"}));
    ASSERT_TRUE(sender.send(MessageKind::quit, {}));
    ASSERT_TRUE(sender.send(MessageKind::event, {"", binary}));
    Message message;
    ASSERT_TRUE(receiver.wait_one(message, 5000));
    EXPECT_EQ(message.kind, MessageKind::output);
    EXPECT_EQ(message.fields, (std::vector<std::string>{"3", "1", "hello"}));
    ASSERT_TRUE(receiver.wait_one(message, 5000));
    EXPECT_EQ(message.kind, MessageKind::quit);
    EXPECT_TRUE(message.fields.empty());
    ASSERT_TRUE(receiver.wait_one(message, 5000));
    EXPECT_EQ(message.kind, MessageKind::event);
    EXPECT_EQ(message.fields, (std::vector<std::string>{"", binary}));
    EXPECT_FALSE(receiver.wait_one(message, 50));  // nothing more: times out
}

// Sending never blocks: what the pipe does not take waits in the channel's queue (queued()) and
// goes out with flush_some() as the reader takes it, byte for byte and in order.
TEST(Channel, SendQueuesWhatThePeerDoesNotTakeYet) {
    Pipe pipe;
    Channel sender(pipe.fds[0], pipe.fds[1]);
    Channel receiver(pipe.fds[0], -1);
    std::string bulk(3u << 20, '\0');  // more than a pipe holds
    for (size_t i = 0; i < bulk.size(); ++i) bulk[i] = static_cast<char>(i * 7 + i / 4096);
    ASSERT_TRUE(sender.send(MessageKind::output, {"ns", "0", "1", bulk, "0"}));
    ASSERT_TRUE(sender.send(MessageKind::done, {"0"}));
    EXPECT_GT(sender.queued(), 0u);  // returned without a reader
    std::vector<Message> got;
    for (int turn = 0; turn < 10000 && got.size() < 2; ++turn) {
        ASSERT_TRUE(sender.flush_some());
        ASSERT_TRUE(receiver.receive(got));
    }
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(sender.queued(), 0u);
    ASSERT_EQ(got[0].fields.size(), 5u);
    EXPECT_TRUE(got[0].fields[3] == bulk);
    EXPECT_EQ(got[1].kind, MessageKind::done);
}

TEST(Channel, SendToAGonePeerFails) {
    Pipe pipe;
    Channel sender(-1, pipe.fds[1]);
    ::close(pipe.fds[0]);
    pipe.fds[0] = -1;
    std::signal(SIGPIPE, SIG_IGN);
    EXPECT_FALSE(sender.send(MessageKind::done, {"0"}));
    EXPECT_FALSE(sender.flush(100));
}

// Writes raw bytes, as a peer of another build (or a broken one) would.
void write_raw(int fd, const std::string& bytes) {
    ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

TEST(Channel, UnknownKindIsDeliveredForTheReceiverToReport) {
    Pipe pipe;
    Channel receiver(pipe.fds[0], -1);
    write_raw(pipe.fds[1], std::string("\x01\x00\x00\x00?", 5));
    Message message;
    ASSERT_TRUE(receiver.wait_one(message, 5000));
    EXPECT_FALSE(message.kind.has_value());
    EXPECT_EQ(message.wire, '?');
    EXPECT_EQ(describe(message), "'?' (unknown)");
}

TEST(Channel, MalformedStreamEndsTheChannel) {
    Pipe pipe;
    Channel receiver(pipe.fds[0], -1);
    // Length 6: kind 'O', then a field that claims 100 bytes.
    write_raw(pipe.fds[1], std::string("\x06\x00\x00\x00O\x64\x00\x00\x00x", 10));
    std::vector<Message> messages;
    EXPECT_FALSE(receiver.receive(messages));
    EXPECT_TRUE(messages.empty());
}

TEST(Channel, EndOfStreamIsReported) {
    Pipe pipe;
    Channel sender(pipe.fds[0], pipe.fds[1]);
    Channel receiver(pipe.fds[0], -1);
    ASSERT_TRUE(sender.send(MessageKind::done, {"0"}));
    ::close(pipe.fds[1]);
    pipe.fds[1] = -1;
    std::vector<Message> messages;
    EXPECT_FALSE(receiver.receive(messages));  // EOF ...
    ASSERT_EQ(messages.size(), 1u);            // ... after the complete message
    EXPECT_EQ(messages[0].kind, MessageKind::done);
}

JobMessage sample_job() {
    JobMessage job;
    job.nspace = "pmixrun.42";
    job.nprocs = 5;
    job.nodes = {{"n0", 2, std::string("addr\0zero", 9)}, {"n1", 3, "addr1"}};
    job.argv = {"putget", "--flag", ""};
    job.env = {"A=1"};
    job.launch_blob = std::string("\0blob", 5);
    job.credential_key = std::string("\0key\xff", 5);
    job.env_directives = {{EnvDirective::Kind::prepend, "PATH", "/opt/bin", ':'},
                          {EnvDirective::Kind::unset, "OMP_*", "", '\0'}};
    job.pset = "ocean";
    job.timeout_s = 30.5;
    job.stdin_rank = Options::kStdinAll;
    job.start_as = {"/work dir", "fea --x", "ea"};
    return job;
}

TEST(JobMessage, RoundTrip) {
    const JobMessage job = sample_job();
    Message message{MessageKind::job, wire_byte(MessageKind::job), encode_job(job)};
    const std::optional<JobMessage> decoded = decode_job(message);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(decoded->nspace, job.nspace);
    EXPECT_EQ(decoded->nprocs, job.nprocs);
    ASSERT_EQ(decoded->nodes.size(), 2u);
    EXPECT_EQ(decoded->nodes[0].name, "n0");
    EXPECT_EQ(decoded->nodes[0].ranks, 2u);
    EXPECT_EQ(decoded->nodes[0].fabric_address, job.nodes[0].fabric_address);
    EXPECT_EQ(decoded->nodes[1].ranks, 3u);
    EXPECT_EQ(decoded->argv, job.argv);
    EXPECT_EQ(decoded->env, job.env);
    EXPECT_EQ(decoded->launch_blob, job.launch_blob);
    EXPECT_EQ(decoded->credential_key, job.credential_key);
    EXPECT_EQ(decoded->env_directives, job.env_directives);
    EXPECT_EQ(decoded->pset, "ocean");
    EXPECT_EQ(decoded->timeout_s, 30.5);
    EXPECT_EQ(decoded->stdin_rank, Options::kStdinAll);
    EXPECT_EQ(decoded->start_as.wdir, "/work dir");
    EXPECT_EQ(decoded->start_as.fork_agent, "fea --x");
    EXPECT_EQ(decoded->start_as.exec_agent, "ea");
}

// The debugger stops ride in an optional last field: absent when none (the layout above), else
// "i", "e", "a" letters; anything else there is refused.
TEST(JobMessage, DebugStops) {
    JobMessage job = sample_job();
    job.debug_stops = "ie";
    Message message{MessageKind::job, 'J', encode_job(job)};
    ASSERT_EQ(message.fields.back(), "ie");
    const std::optional<JobMessage> decoded = decode_job(message);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(decoded->debug_stops, "ie");
    EXPECT_EQ(decoded->stdin_rank, Options::kStdinAll);
    message.fields.back() = "x";
    EXPECT_FALSE(decode_job(message).has_value());
    message.fields.back() = "";
    EXPECT_FALSE(decode_job(message).has_value());
    message.fields.back() = "a";
    message.fields.push_back("extra");
    EXPECT_FALSE(decode_job(message).has_value());
}

// The field layout is the protocol: the one pmixd has read since the head first sent it.
TEST(JobMessage, FieldLayout) {
    EXPECT_EQ(encode_job(sample_job()), (std::vector<std::string>{"pmixrun.42",
                                                                  "5",
                                                                  "2",
                                                                  "n0",
                                                                  "2",
                                                                  std::string("addr\0zero", 9),
                                                                  "n1",
                                                                  "3",
                                                                  "addr1",
                                                                  "3",
                                                                  "putget",
                                                                  "--flag",
                                                                  "",
                                                                  "1",
                                                                  "A=1",
                                                                  std::string("\0blob", 5),
                                                                  std::string("\0key\xff", 5),
                                                                  "ocean",
                                                                  "30.5",
                                                                  "2",
                                                                  "P:",
                                                                  "PATH",
                                                                  "/opt/bin",
                                                                  std::string("U\0", 2),
                                                                  "OMP_*",
                                                                  "",
                                                                  "all",
                                                                  "/work dir",
                                                                  "fea --x",
                                                                  "ea"}));
}

TEST(JobMessage, MalformedIsRejected) {
    const std::vector<std::string> good = encode_job(sample_job());
    Message message{MessageKind::job, 'J', good};
    ASSERT_TRUE(decode_job(message).has_value());
    for (size_t keep = 0; keep < good.size(); ++keep) {  // every truncation
        Message truncated{MessageKind::job, 'J', {good.begin(), good.begin() + keep}};
        EXPECT_FALSE(decode_job(truncated).has_value()) << keep << " fields";
    }
    Message wrong_kind{MessageKind::quit, 'Q', good};
    EXPECT_FALSE(decode_job(wrong_kind).has_value());
    Message bad_count = message;
    bad_count.fields[2] = "x";
    EXPECT_FALSE(decode_job(bad_count).has_value());
    bad_count.fields[2] = "-1";
    EXPECT_FALSE(decode_job(bad_count).has_value());
    bad_count.fields[2] = "99999999999";
    EXPECT_FALSE(decode_job(bad_count).has_value());
    JobMessage without_program = sample_job();
    without_program.argv.clear();
    Message no_program{MessageKind::job, 'J', encode_job(without_program)};
    EXPECT_FALSE(decode_job(no_program).has_value());
    Message bad_directive = message;
    bad_directive.fields[bad_directive.fields.size() - 10] = "X:";  // no such kind
    EXPECT_FALSE(decode_job(bad_directive).has_value());
    Message bad_stdin = message;
    bad_stdin.fields[bad_stdin.fields.size() - 4] = "-3";  // before wdir and the two agents
    EXPECT_FALSE(decode_job(bad_stdin).has_value());
    Message trailing = message;
    trailing.fields.push_back("extra");
    EXPECT_FALSE(decode_job(trailing).has_value());
}

}  // namespace
}  // namespace pmix::launcher
