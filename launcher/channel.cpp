// Framing of the head <-> daemon messages (channel.h).
#include "channel.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace pmix::launcher {
namespace {

constexpr uint32_t kMaxMessage = 64u << 20;

void put_u32(std::string& s, uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t get_u32(const std::string& s, size_t at) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
        v |= static_cast<uint32_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
    return v;
}

}  // namespace

Channel::Channel(int in_fd, int out_fd) : in_(in_fd), out_(out_fd) {
    ::fcntl(in_, F_SETFL, ::fcntl(in_, F_GETFL) | O_NONBLOCK);
}

bool Channel::send(char type, const std::vector<std::string>& fields) {
    std::string body(1, type);
    for (const std::string& f : fields) {
        put_u32(body, static_cast<uint32_t>(f.size()));
        body += f;
    }
    std::string msg;
    put_u32(msg, static_cast<uint32_t>(body.size()));
    msg += body;
    size_t done = 0;
    while (done < msg.size()) {
        ssize_t n = ::write(out_, msg.data() + done, msg.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            pollfd p{out_, POLLOUT, 0};
            ::poll(&p, 1, 1000);
            continue;
        }
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

bool Channel::parse(std::vector<Message>& out) {
    size_t at = 0;
    while (buf_.size() - at >= 4) {
        const uint32_t len = get_u32(buf_, at);
        if (len == 0 || len > kMaxMessage) return false;
        if (buf_.size() - at - 4 < len) break;
        Message m;
        m.type = buf_[at + 4];
        size_t p = at + 5;
        const size_t end = at + 4 + len;
        while (p < end) {
            if (end - p < 4) return false;
            const uint32_t flen = get_u32(buf_, p);
            p += 4;
            if (flen > end - p) return false;
            m.fields.emplace_back(buf_, p, flen);
            p += flen;
        }
        out.push_back(std::move(m));
        at = end;
    }
    buf_.erase(0, at);
    return true;
}

bool Channel::receive(std::vector<Message>& out) {
    for (Message& m : ready_) out.push_back(std::move(m));
    ready_.clear();
    char tmp[65536];
    for (;;) {
        ssize_t n = ::read(in_, tmp, sizeof tmp);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return parse(out);
        if (n <= 0) {
            parse(out);
            return false;
        }
        buf_.append(tmp, static_cast<size_t>(n));
        if (buf_.size() > kMaxMessage + 8) return parse(out);
    }
}

bool Channel::wait_one(Message& m, int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        if (!ready_.empty()) {
            m = std::move(ready_.front());
            ready_.erase(ready_.begin());
            return true;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) return false;
        pollfd p{in_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        std::vector<Message> got;
        const bool alive = receive(got);
        for (Message& g : got) ready_.push_back(std::move(g));
        if (!alive && ready_.empty()) return false;
    }
}

}  // namespace pmix::launcher
