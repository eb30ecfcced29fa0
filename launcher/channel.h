// launcher/channel.h - messages between pmixrun (the head) and its node daemons (pmixd).
//
// They travel over the daemon's stdin and stdout, so any launch agent that forwards those works
// unchanged: ssh, `ip netns exec`, srun. A message is a 4-byte little-endian length of what
// follows, a type byte, then its fields, each a 4-byte length and the bytes. A stream that breaks
// these rules (or a message over 64 MiB) ends the channel: the peer is treated as gone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pmix::launcher {

struct Message {
    char type = 0;
    std::vector<std::string> fields;
};

class Channel {
public:
    Channel(int in_fd, int out_fd);  // makes in_fd non-blocking
    int in_fd() const { return in_; }
    // Writes the whole message (blocking); false if the peer is gone.
    bool send(char type, const std::vector<std::string>& fields);
    // Reads what the (non-blocking) input has and appends every complete message; false at EOF or
    // on a malformed stream (messages already complete are still appended).
    bool receive(std::vector<Message>& out);
    // Waits up to `timeout_ms` for one message; false on timeout, EOF or a malformed stream.
    bool wait_one(Message& m, int timeout_ms);

private:
    bool parse(std::vector<Message>& out);
    int in_, out_;
    std::string buf_;
    std::vector<Message> ready_;  // parsed by wait_one beyond the one it returned
};

}  // namespace pmix::launcher
