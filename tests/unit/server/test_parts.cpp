// tests/unit/server/test_parts.cpp - the parts State is made of (id_table.h, pending.h,
// namespaces.h) and the server's reads of its one store (publish.h): what a fence ships as a
// process's modex, and what its own Get sees.
#include "server/events.h"
#include "server/id_table.h"
#include "server/iof.h"
#include "server/namespaces.h"
#include "server/pending.h"
#include "server/publish.h"

#include "exec/log.h"
#include "gds/store.h"

#include <gtest/gtest.h>

#include <pmix_common.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace pmix::server;

TEST(IdTable, IdsAreFreshAndAnItemTakenOnceIsGone) {
    IdTable<std::string> t;
    auto a = t.add("a");
    auto b = t.add("b");
    EXPECT_NE(a.first, b.first);
    ASSERT_NE(t.find(a.first), nullptr);
    EXPECT_EQ(*t.find(a.first), "a");
    auto taken = t.take(a.first);
    ASSERT_TRUE(taken.has_value());
    EXPECT_EQ(*taken, "a");
    EXPECT_FALSE(t.take(a.first).has_value());  // a late answer finds nothing
    EXPECT_EQ(t.find(a.first), nullptr);
    EXPECT_TRUE(t.erase(b.first));
    EXPECT_TRUE(t.empty());
    EXPECT_GT(t.add("c").first, b.first);  // never reused
}

TEST(CommitWaits, TakeAllAnswersEveryWaitOfOneTargetOnly) {
    CommitWaits w;
    const ProcKey p0{"ns", 0}, p1{"ns", 1};
    CommitWait k;
    k.key = "k0";
    const auto first = w.add(p0, k).first;
    k.key = "k1";
    w.add(p0, k);
    w.add(p1, k);
    EXPECT_TRUE(w.take(p0, first).has_value());   // its timeout
    EXPECT_FALSE(w.take(p0, first).has_value());  // then the commit does not see it
    EXPECT_EQ(w.take_all(p0).size(), 1u);
    EXPECT_TRUE(w.take_all(p0).empty());
    int left = 0;
    w.for_each([&](CommitWait&) { ++left; });
    EXPECT_EQ(left, 1);
}

TEST(NamespaceTable, TouchCreatesUnregisteredAndLocalityIsPerRank) {
    NamespaceTable t;
    EXPECT_FALSE(t.contains("a"));
    pmix::server::Namespace& a = t.touch("a");
    EXPECT_EQ(a.name, "a");
    EXPECT_FALSE(a.registered);
    a.local_ranks.insert(3);
    EXPECT_TRUE(t.is_local("a", 3));
    EXPECT_FALSE(t.is_local("a", 4));
    EXPECT_FALSE(t.is_local("b", 3));
    t.erase("a");
    EXPECT_EQ(t.find("a"), nullptr);
}

namespace {

pmix_info_t info_u32(const char* key, std::uint32_t x) {
    pmix_info_t i;
    PMIX_INFO_LOAD(&i, key, &x, PMIX_UINT32);
    return i;
}

}  // namespace

// What modex_blob ships for a process: committed REMOTE/GLOBAL (and INTERNAL) keys, never
// LOCAL ones nor registration data (stored without scope); the server's own Get sees them all.
TEST(StoreReads, ModexExportTakesCommittedRemoteAndGlobalOnly) {
    auto store = pmix::gds::make_heap_store();
    auto reader = store->make_reader();
    ASSERT_NE(reader, nullptr);
    const std::string ns = "test.parts";
    pmix_value_t rank_value;
    rank_value.type = PMIX_PROC_RANK;
    rank_value.data.rank = 2;
    ASSERT_EQ(publish_value(*store, ns, 2, PMIX_RANK, rank_value), PMIX_SUCCESS);
    std::vector<pmix_info_t> in{info_u32("k.local", 1), info_u32("k.remote", 2),
                                info_u32("k.global", 3)};
    ASSERT_EQ(publish_modex(*store, ns, 2,
                            {{PMIX_LOCAL, &in[0]}, {PMIX_REMOTE, &in[1]}, {PMIX_GLOBAL, &in[2]}}),
              PMIX_SUCCESS);
    const InfoList shipped = read_all(*reader, ns, 2, modex_export_scopes());
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < shipped.size(); ++i) keys.emplace_back(shipped.data()[i].key);
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys, (std::vector<std::string>{"k.global", "k.remote"}));
    EXPECT_EQ(read_all(*reader, ns, 2, pmix::gds::kAllScopes).size(), 4u);
    Value v;
    ASSERT_EQ(read_value(*reader, ns, 2, "k.local", v), PMIX_SUCCESS);
    EXPECT_EQ(v.get().data.uint32, 1u);
    EXPECT_TRUE(holds_proc_value(*reader, ns, 2, "k.remote"));
    EXPECT_FALSE(holds_proc_value(*reader, ns, 3, "k.remote"));
    EXPECT_EQ(read_value(*reader, ns, 3, "k.remote", v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(publish_value(*store, ns, PMIX_RANK_LOCAL_NODE, "x", rank_value), PMIX_ERR_BAD_PARAM);
    for (auto& i : in) PMIX_INFO_DESTRUCT(&i);
}

// The lifecycle-event cache: job events only, one per code and namespace (the newer replaces the
// older), at most EventCache::kMax (the oldest dropped), nothing without a namespace.
TEST(EventCacheBound, KeepsOnePerCodeAndNamespaceUpToTheBound) {
    using pmix::server::Event;
    using pmix::server::EventCache;
    EventCache cache;
    auto raise = [&](pmix_status_t code, const std::string& ns, int term) {
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_NSPACE, ns.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
        Event ev;
        ev.code = code;
        ev.range = PMIX_RANGE_SESSION;
        ev.info = info;
        ev.ninfo = 2;
        cache.keep(ev);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
    };
    raise(PMIX_EVENT_JOB_END, "a", 0);
    raise(PMIX_EVENT_JOB_END, "a", 5);  // replaces the first
    raise(PMIX_EVENT_JOB_START, "a", 0);
    raise(PMIX_ERR_LOST_CONNECTION, "a", 0);  // not a job event: not kept
    Event nameless;
    nameless.code = PMIX_EVENT_JOB_END;
    cache.keep(nameless);
    ASSERT_EQ(cache.entries.size(), 2u);
    EXPECT_EQ(cache.entries[0].code, PMIX_EVENT_JOB_END);
    EXPECT_EQ(cache.entries[0].info.find(PMIX_JOB_TERM_STATUS)->value.data.status, 5);
    for (std::size_t i = 0; i < EventCache::kMax + 10; ++i)
        raise(PMIX_EVENT_JOB_END, "job" + std::to_string(i), 0);
    ASSERT_EQ(cache.entries.size(), EventCache::kMax);
    EXPECT_EQ(cache.entries.front().nspace, "job10");
    EXPECT_EQ(cache.entries.back().nspace, "job" + std::to_string(EventCache::kMax + 9));
}

// PMIX_READY_FOR_DEBUG is kept like the job events (one per namespace, the newest), until a
// PMIX_DEBUGGER_RELEASE names its namespace (custom range or affected proc; one that names none
// drops every one) or its job ends.
TEST(EventCacheReady, KeptUntilReleasedOrEnded) {
    using pmix::server::Event;
    using pmix::server::EventCache;
    EventCache cache;
    auto ready = [&](const std::string& ns, const char* breakpoint) {
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_NSPACE, ns.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_BREAKPOINT, breakpoint, PMIX_STRING);
        Event ev;
        ev.code = PMIX_READY_FOR_DEBUG;
        ev.range = PMIX_RANGE_SESSION;
        ev.info = info;
        ev.ninfo = 2;
        cache.keep(ev);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
    };
    auto release = [&](const char* key, const std::string& ns) {
        pmix_proc_t target;
        PMIX_LOAD_PROCID(&target, ns.c_str(), PMIX_RANK_WILDCARD);
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, key, &target, PMIX_PROC);
        Event ev;
        ev.code = PMIX_DEBUGGER_RELEASE;
        ev.range = PMIX_RANGE_CUSTOM;
        ev.info = &info;
        ev.ninfo = ns.empty() ? 0 : 1;
        cache.keep(ev);
        PMIX_INFO_DESTRUCT(&info);
    };
    auto readies = [&] {
        std::vector<std::string> out;
        for (const EventCache::Entry& e : cache.entries)
            if (e.code == PMIX_READY_FOR_DEBUG) out.push_back(e.nspace);
        return out;
    };
    ASSERT_TRUE(EventCache::cached_code(PMIX_READY_FOR_DEBUG));
    ready("a", "one");
    ready("a", "two");  // replaces the first
    ready("b", "x");
    ready("c", "x");
    ready("d", "x");
    ASSERT_EQ(readies(), (std::vector<std::string>{"a", "b", "c", "d"}));
    EXPECT_STREQ(cache.entries.front().info.find(PMIX_BREAKPOINT)->value.data.string, "two");
    release(PMIX_EVENT_CUSTOM_RANGE, "b");
    EXPECT_EQ(readies(), (std::vector<std::string>{"a", "c", "d"}));
    release(PMIX_EVENT_AFFECTED_PROC, "c");
    EXPECT_EQ(readies(), (std::vector<std::string>{"a", "d"}));
    pmix_info_t end;
    PMIX_INFO_LOAD(&end, PMIX_NSPACE, "a", PMIX_STRING);
    Event ended;
    ended.code = PMIX_EVENT_JOB_END;
    ended.range = PMIX_RANGE_SESSION;
    ended.info = &end;
    ended.ninfo = 1;
    cache.keep(ended);
    PMIX_INFO_DESTRUCT(&end);
    EXPECT_EQ(readies(), (std::vector<std::string>{"d"}));
    ASSERT_EQ(cache.entries.size(), 2u);   // a's JOB_END is kept
    release(PMIX_EVENT_CUSTOM_RANGE, "");  // names no one: every job's
    EXPECT_TRUE(readies().empty());
    for (std::size_t i = 0; i < EventCache::kMax + 10; ++i) ready("r" + std::to_string(i), "x");
    EXPECT_EQ(cache.entries.size(), EventCache::kMax);  // bounded with the others
}

// PMIX_MCA_pmix_event_caching_window: whole seconds as OpenPMIx reads it; anything else is a
// warning (written where the log goes) and the default of 1 s, never a silent fallback.
// A deregistered namespace takes its output cache and the registrations for it alone along (a
// tool that spawns job after job with forwarding would otherwise hold one per job it ran).
TEST(IofTable, DroppingANamespaceDropsTheRegistrationsForItAlone) {
    IofTable t;
    auto add = [&](std::vector<const char*> nspaces) {
        IofRegistration reg;
        reg.requester = {"tool", 0};
        for (const char* ns : nspaces) {
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, ns, PMIX_RANK_WILDCARD);
            reg.procs.push_back(p);
        }
        t.registrations.emplace(t.next_id++, std::move(reg));
    };
    add({"job.1"});
    add({"job.1", "job.1"});
    add({"job.1", "job.2"});
    add({"job.2"});
    add({});  // no procs: not a namespace's
    IofChunk chunk;
    PMIX_LOAD_PROCID(&chunk.source, "job.1", 0);
    chunk.channel = PMIX_FWD_STDOUT_CHANNEL;
    chunk.bytes = {'h', 'i'};
    t.cache(std::move(chunk));
    ASSERT_EQ(t.cached_bytes(), 2u);
    t.drop_namespace("job.1");
    EXPECT_EQ(t.cached_bytes(), 0u);
    ASSERT_EQ(t.registrations.size(), 3u);
    EXPECT_EQ(t.registrations.count(3), 1u);  // job.1 and job.2: stays
    EXPECT_EQ(t.registrations.count(4), 1u);
    EXPECT_EQ(t.registrations.count(5), 1u);
}

TEST(CachingWindow, WholeSecondsAreTakenAndAnythingElseIsWarnedAbout) {
    using std::chrono::milliseconds;
    EXPECT_EQ(caching_window_from(nullptr), milliseconds(1000));
    EXPECT_EQ(caching_window_from("0"), milliseconds(0));
    EXPECT_EQ(caching_window_from("3"), milliseconds(3000));
    std::FILE* sink = std::tmpfile();
    ASSERT_NE(sink, nullptr);
    pmix::exec::set_log_output(pmix::exec::LogLevel::warn, ::fileno(sink));
    for (const char* bad : {"", "abc", "2s", "-1", "99999"}) {
        EXPECT_EQ(caching_window_from(bad), milliseconds(1000)) << '"' << bad << '"';
    }
    pmix::exec::set_log_output(pmix::exec::LogLevel::error, -1);
    std::rewind(sink);
    std::string text;
    for (int c = std::fgetc(sink); c != EOF; c = std::fgetc(sink)) text += static_cast<char>(c);
    std::fclose(sink);
    EXPECT_NE(text.find("PMIX_MCA_pmix_event_caching_window=\"abc\""), std::string::npos) << text;
    EXPECT_NE(text.find("PMIX_MCA_pmix_event_caching_window=\"99999\""), std::string::npos);
}
