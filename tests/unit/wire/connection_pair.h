// Fixture for Connection tests: two executors (one per side, like two processes) and
// socketpair-connected Connections, plus a recorder for close notifications.
#pragma once

#include "helpers.h"

#include "exec/completion.h"
#include "wire/connection.h"

#include <gtest/gtest.h>

#include <sys/socket.h>

#include <atomic>
#include <memory>
#include <utility>

namespace wiretest {

// Records every on_closed call; the first reason is available through a Completion.
struct CloseLog {
    exec::Completion<wire::CloseReason> first;
    std::shared_ptr<std::atomic<int>> count = std::make_shared<std::atomic<int>>(0);

    wire::Connection::ClosedHandler handler() const {
        return [first = first, count = count](const wire::CloseReason& r) {
            count->fetch_add(1);
            first.complete(r);
        };
    }
};

class ConnectionPairTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(ax.start(), PMIX_SUCCESS);
        ASSERT_EQ(bx.start(), PMIX_SUCCESS);
    }

    // Two started Connections on a socketpair; `b_handler` answers messages on side B.
    std::pair<std::shared_ptr<wire::Connection>, std::shared_ptr<wire::Connection>> make_pair(
        wire::Connection::MessageHandler b_handler, wire::ConnectionOptions a_opts = {},
        wire::ConnectionOptions b_opts = {}) {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            ADD_FAILURE() << "socketpair failed";
            return {};
        }
        auto a = wire::Connection::create(ax, exec::UniqueFd(sv[0]), a_opts);
        auto b = wire::Connection::create(bx, exec::UniqueFd(sv[1]), b_opts);
        a->on_closed(a_closed.handler());
        b->on_closed(b_closed.handler());
        if (b_handler) {
            b->on_message(std::move(b_handler));
        }
        EXPECT_EQ(a->start(), PMIX_SUCCESS);
        EXPECT_EQ(b->start(), PMIX_SUCCESS);
        return {a, b};
    }

    // One library Connection (side A) and the raw other end, for misbehaving-peer tests.
    std::pair<std::shared_ptr<wire::Connection>, exec::UniqueFd> make_raw(
        wire::ConnectionOptions a_opts = {}) {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            ADD_FAILURE() << "socketpair failed";
            return {};
        }
        auto a = wire::Connection::create(ax, exec::UniqueFd(sv[0]), a_opts);
        a->on_closed(a_closed.handler());
        EXPECT_EQ(a->start(), PMIX_SUCCESS);
        return {a, exec::UniqueFd(sv[1])};
    }

    // A message handler for side B that echoes kOpEcho as `rank`.
    static wire::Connection::MessageHandler echo_as(pmix_rank_t rank) {
        return [rank](wire::Connection& c, wire::Frame&& f) {
            if (f.op == kOpEcho) {
                c.reply(f, echo_reply_payload(rank, f.payload));
            }
        };
    }

    exec::Executor ax{"side-a"};
    exec::Executor bx{"side-b"};
    CloseLog a_closed;
    CloseLog b_closed;
};

}  // namespace wiretest
