// Framing of the head <-> daemon messages, their kinds and the job message (channel.h).
#include "channel.h"

#include <cstdio>
#include <cstdlib>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>

namespace pmix::launcher {
namespace {

constexpr uint32_t kMaxMessage = 64u << 20;

struct KindName {
    MessageKind kind;
    const char* name;
};
// clang-format off
// (two kinds a line, as they were written)
constexpr KindName kKinds[] = {
    {MessageKind::address, "address"},     {MessageKind::connected, "connected"},
    {MessageKind::finalized, "finalized"}, {MessageKind::exited, "exited"},
    {MessageKind::output, "output"},       {MessageKind::failed, "failed"},
    {MessageKind::done, "done"},           {MessageKind::job, "job"},
    {MessageKind::kill, "kill"},           {MessageKind::timeout, "timeout"},
    {MessageKind::node_lost, "node lost"}, {MessageKind::quit, "quit"},
    {MessageKind::event, "event"},         {MessageKind::signal, "signal"},
    {MessageKind::stdin_data, "stdin"},    {MessageKind::stdin_taken, "stdin taken"},
    {MessageKind::publish, "publish"},     {MessageKind::lookup, "lookup"},
    {MessageKind::unpublish, "unpublish"}, {MessageKind::directory_reply, "directory reply"},
    {MessageKind::spawn, "spawn"},         {MessageKind::spawn_part, "spawn part"},
    {MessageKind::spawn_started, "spawn started"}, {MessageKind::spawn_reply, "spawn reply"},
    {MessageKind::connect, "connect"},     {MessageKind::connect_reply, "connect reply"},
    {MessageKind::retire, "retire"},
    {MessageKind::debug_ready, "debug ready"}, {MessageKind::debug_started, "debug started"},
    {MessageKind::debug_release, "debug release"}, {MessageKind::aborted, "aborted"},
};
// clang-format on

// What one receive() reads at most, so that the messages it returns stay small (output: 64 KiB
// each) however fast the peer writes; poll reports the rest at once.
constexpr size_t kReceiveChunk = 256u << 10;

void put_u32(std::string& out, uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint32_t get_u32(const std::string& bytes, size_t at) {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i)
        value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    return value;
}

// A decimal count of at most `limit`; false on anything else.
bool parse_count(const std::string& text, uint64_t limit, uint64_t& out) {
    if (text.empty() || text.size() > 20) return false;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (*end != '\0' || text[0] == '-' || value > limit) return false;
    out = value;
    return true;
}

}  // namespace

std::optional<MessageKind> message_kind(char byte) {
    for (const KindName& known : kKinds)
        if (wire_byte(known.kind) == byte) return known.kind;
    return std::nullopt;
}

const char* message_kind_name(MessageKind kind) {
    for (const KindName& known : kKinds)
        if (known.kind == kind) return known.name;
    return "unknown";
}

std::string describe(const Message& message) {
    return std::string("'") + message.wire + "' (" +
           (message.kind ? message_kind_name(*message.kind) : "unknown") + ")";
}

Channel::Channel(int in_fd, int out_fd) : in_(in_fd), out_(out_fd) {
    ::fcntl(in_, F_SETFL, ::fcntl(in_, F_GETFL) | O_NONBLOCK);
    ::fcntl(out_, F_SETFL, ::fcntl(out_, F_GETFL) | O_NONBLOCK);
}

bool Channel::send(MessageKind kind, const std::vector<std::string>& fields) {
    if (broken_) return false;
    size_t length = 1;
    for (const std::string& field : fields) length += 4 + field.size();
    put_u32(outbox_, static_cast<uint32_t>(length));
    outbox_.push_back(wire_byte(kind));
    for (const std::string& field : fields) {
        put_u32(outbox_, static_cast<uint32_t>(field.size()));
        outbox_ += field;
    }
    return flush_some();
}

bool Channel::flush_some() {
    while (!broken_ && sent_ < outbox_.size()) {
        const ssize_t written = ::write(out_, outbox_.data() + sent_, outbox_.size() - sent_);
        if (written < 0 && errno == EINTR) continue;
        if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (written <= 0) {
            broken_ = true;
            break;
        }
        sent_ += static_cast<size_t>(written);
    }
    if (sent_ == outbox_.size() || broken_) {
        outbox_.clear();
        sent_ = 0;
    } else if (sent_ > (1u << 20) && sent_ > outbox_.size() / 2) {  // amortized: no O(n^2)
        outbox_.erase(0, sent_);
        sent_ = 0;
    }
    return !broken_;
}

bool Channel::flush(int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (flush_some() && queued() > 0) {
        const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 deadline - std::chrono::steady_clock::now())
                                 .count();
        if (left_ms <= 0) return false;
        pollfd writable{out_, POLLOUT, 0};
        ::poll(&writable, 1, static_cast<int>(left_ms));
    }
    return !broken_;
}

bool Channel::parse(std::vector<Message>& out) {
    size_t at = 0;
    while (buffer_.size() - at >= 4) {
        const uint32_t length = get_u32(buffer_, at);
        if (length == 0 || length > kMaxMessage) return false;
        if (buffer_.size() - at - 4 < length) break;
        Message message;
        message.wire = buffer_[at + 4];
        message.kind = message_kind(message.wire);
        size_t field_at = at + 5;
        const size_t end = at + 4 + length;
        while (field_at < end) {
            if (end - field_at < 4) return false;
            const uint32_t field_length = get_u32(buffer_, field_at);
            field_at += 4;
            if (field_length > end - field_at) return false;
            message.fields.emplace_back(buffer_, field_at, field_length);
            field_at += field_length;
        }
        out.push_back(std::move(message));
        at = end;
    }
    buffer_.erase(0, at);
    return true;
}

bool Channel::receive(std::vector<Message>& out) {
    for (Message& message : ready_) out.push_back(std::move(message));
    ready_.clear();
    char chunk[65536];
    for (size_t taken = 0;; taken += sizeof chunk) {
        if (taken >= kReceiveChunk) return parse(out);
        const ssize_t bytes_read = ::read(in_, chunk, sizeof chunk);
        if (bytes_read < 0 && errno == EINTR) continue;
        if (bytes_read < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return parse(out);
        if (bytes_read <= 0) {
            parse(out);
            return false;
        }
        buffer_.append(chunk, static_cast<size_t>(bytes_read));
        if (buffer_.size() > kMaxMessage + 8) return parse(out);
    }
}

bool Channel::wait_one(Message& message, int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        if (!ready_.empty()) {
            message = std::move(ready_.front());
            ready_.erase(ready_.begin());
            return true;
        }
        const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 deadline - std::chrono::steady_clock::now())
                                 .count();
        if (left_ms <= 0) return false;
        pollfd readable{in_, POLLIN, 0};
        if (::poll(&readable, 1, static_cast<int>(left_ms)) <= 0) continue;
        std::vector<Message> received;
        const bool alive = receive(received);
        for (Message& one : received) ready_.push_back(std::move(one));
        if (!alive && ready_.empty()) return false;
    }
}

std::vector<std::string> encode_job(const JobMessage& job) {
    std::vector<std::string> fields{job.nspace, std::to_string(job.nprocs),
                                    std::to_string(job.nodes.size())};
    for (const JobMessage::Node& node : job.nodes) {
        fields.push_back(node.name);
        fields.push_back(std::to_string(node.ranks));
        fields.push_back(node.fabric_address);
    }
    for (const std::vector<std::string>* list : {&job.argv, &job.env}) {
        fields.push_back(std::to_string(list->size()));
        fields.insert(fields.end(), list->begin(), list->end());
    }
    fields.push_back(job.launch_blob);
    fields.push_back(job.credential_key);
    fields.push_back(job.pset);
    char seconds[40];
    std::snprintf(seconds, sizeof seconds, "%.17g", job.timeout_s);
    fields.push_back(seconds);
    fields.push_back(std::to_string(job.env_directives.size()));
    for (const EnvDirective& d : job.env_directives) {
        fields.push_back(std::string{static_cast<char>(d.kind), d.separator});
        fields.push_back(d.name);
        fields.push_back(d.value);
    }
    fields.push_back(stdin_target_text(job.stdin_rank));
    fields.insert(fields.end(),
                  {job.start_as.wdir, job.start_as.fork_agent, job.start_as.exec_agent});
    if (!job.debug_stops.empty()) fields.push_back(job.debug_stops);
    return fields;
}

std::optional<JobMessage> decode_job(const Message& message) {
    const std::vector<std::string>& fields = message.fields;
    size_t next = 0;
    auto take = [&]() -> const std::string* {
        return next < fields.size() ? &fields[next++] : nullptr;
    };
    // Every count is bounded by the fields that are left, so nothing is reserved blindly.
    auto take_count = [&](uint64_t limit, uint64_t& out) {
        const std::string* text = take();
        return text != nullptr && parse_count(*text, limit, out);
    };
    JobMessage job;
    uint64_t nprocs = 0, nnodes = 0;
    const std::string* nspace = take();
    if (message.kind != MessageKind::job || nspace == nullptr || !take_count(UINT32_MAX, nprocs) ||
        !take_count(fields.size(), nnodes))
        return std::nullopt;
    job.nspace = *nspace;
    job.nprocs = static_cast<uint32_t>(nprocs);
    for (uint64_t node = 0; node < nnodes; ++node) {
        JobMessage::Node& entry = job.nodes.emplace_back();
        const std::string* name = take();
        uint64_t ranks = 0;
        if (name == nullptr || !take_count(UINT32_MAX, ranks)) return std::nullopt;
        const std::string* address = take();
        if (address == nullptr) return std::nullopt;
        entry = {*name, static_cast<uint32_t>(ranks), *address};
    }
    for (std::vector<std::string>* list : {&job.argv, &job.env}) {
        uint64_t count = 0;
        if (!take_count(fields.size(), count)) return std::nullopt;
        for (; count > 0; --count) {
            const std::string* item = take();
            if (item == nullptr) return std::nullopt;
            list->push_back(*item);
        }
    }
    const std::string* blob = take();
    const std::string* key = take();
    const std::string* pset = take();
    const std::string* timeout = take();
    if (blob == nullptr || key == nullptr || pset == nullptr || timeout == nullptr ||
        job.argv.empty())
        return std::nullopt;
    char* end = nullptr;
    job.timeout_s = std::strtod(timeout->c_str(), &end);
    if (timeout->empty() || *end != '\0' || !(job.timeout_s >= 0)) return std::nullopt;
    job.launch_blob = *blob;
    job.credential_key = *key;
    job.pset = *pset;
    uint64_t ndirectives = 0;
    if (!take_count(fields.size(), ndirectives)) return std::nullopt;
    for (; ndirectives > 0; --ndirectives) {
        const std::string* kind = take();
        const std::string* name = take();
        const std::string* value = take();
        if (kind == nullptr || name == nullptr || value == nullptr || kind->size() != 2 ||
            name->empty())
            return std::nullopt;
        const auto k = static_cast<EnvDirective::Kind>((*kind)[0]);
        if (k != EnvDirective::Kind::set && k != EnvDirective::Kind::unset &&
            k != EnvDirective::Kind::prepend && k != EnvDirective::Kind::append)
            return std::nullopt;
        job.env_directives.push_back({k, *name, *value, (*kind)[1]});
    }
    const std::string* stdin_target = take();
    if (stdin_target == nullptr || !parse_stdin_target(*stdin_target, job.stdin_rank))
        return std::nullopt;
    for (std::string* part :
         {&job.start_as.wdir, &job.start_as.fork_agent, &job.start_as.exec_agent}) {
        const std::string* given = take();
        if (given == nullptr) return std::nullopt;
        *part = *given;
    }
    if (const std::string* stops = take(); stops != nullptr) {
        if (stops->empty() || stops->find_first_not_of("iea") != std::string::npos)
            return std::nullopt;
        job.debug_stops = *stops;
    }
    if (next != fields.size()) return std::nullopt;
    return job;
}

}  // namespace pmix::launcher
