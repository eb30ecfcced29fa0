// FrameDecoder: every chunking of valid streams yields the same frames; every kind of
// corruption is refused with a reason, at the earliest byte that proves it; random input never
// crashes (checked under ASan/UBSan).
#include "helpers.h"

#include "wire/frame.h"
#include "base/le.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <span>

namespace {

using pmix::wire::Bytes;
using pmix::wire::DecodeError;
using pmix::wire::Frame;
using pmix::wire::FrameDecoder;
using pmix::wire::kHeaderSize;

std::vector<Frame> sample_frames() {
    std::vector<Frame> frames;
    const std::size_t sizes[] = {0, 1, 3, 24, 25, 57, 0, 2};
    std::uint32_t i = 0;
    for (std::size_t n : sizes) {
        Frame f;
        f.flags = (i % 3 == 1) ? pmix::wire::kFlagReply : 0;
        f.op = pmix::wire::kFirstUserOp + i;
        f.tag = i * 7919u;
        f.payload = wiretest::make_payload(n, i);
        frames.push_back(std::move(f));
        ++i;
    }
    return frames;
}

Bytes concat(const std::vector<Frame>& frames) {
    Bytes stream;
    for (const auto& f : frames) {
        Bytes b = pmix::wire::encode_frame(f);
        stream.insert(stream.end(), b.begin(), b.end());
    }
    return stream;
}

bool same(const Frame& a, const Frame& b) {
    return a.flags == b.flags && a.op == b.op && a.tag == b.tag && a.payload == b.payload;
}

// Feeds `stream` cut at the given offsets (sorted, within bounds) and returns the frames.
std::vector<Frame> decode_cut(const Bytes& stream, const std::vector<std::size_t>& cuts, bool* ok,
                              bool* boundary) {
    FrameDecoder d;
    std::vector<Frame> out;
    std::size_t from = 0;
    *ok = true;
    auto feed_to = [&](std::size_t to) {
        *ok = *ok && d.feed(std::span(stream.data() + from, to - from), out);
        from = to;
    };
    for (std::size_t c : cuts) {
        feed_to(c);
    }
    feed_to(stream.size());
    *boundary = d.at_boundary();
    return out;
}

void expect_frames(const std::vector<Frame>& got, const std::vector<Frame>& want,
                   const std::string& how) {
    ASSERT_EQ(got.size(), want.size()) << how;
    for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_TRUE(same(got[i], want[i])) << how << ", frame " << i;
    }
}

TEST(FrameDecoder, HeaderLayoutIsLittleEndianAndFixed) {
    auto h = pmix::wire::encode_header(pmix::wire::kFlagReply, 0x01020304, 0xA0B0C0D0, 5);
    EXPECT_EQ(h.size(), 24u);
    EXPECT_EQ(std::string(h.begin(), h.begin() + 4), "PMXW");
    EXPECT_EQ(h[4], pmix::wire::kProtocolVersion & 0xFF);
    EXPECT_EQ(h[5], pmix::wire::kProtocolVersion >> 8);
    EXPECT_EQ(h[6], 1);
    EXPECT_EQ(h[8], 0x04);
    EXPECT_EQ(h[11], 0x01);
    EXPECT_EQ(h[12], 0xD0);
    EXPECT_EQ(h[16], 5);
    for (std::size_t i = 20; i < 24; ++i) {
        EXPECT_EQ(h[i], 0) << "reserved byte " << i;
    }
}

TEST(FrameDecoder, EverySingleCutOfAValidStream) {
    auto frames = sample_frames();
    Bytes stream = concat(frames);
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        bool ok = false, boundary = false;
        auto got = decode_cut(stream, {cut}, &ok, &boundary);
        ASSERT_TRUE(ok) << "cut at " << cut;
        ASSERT_TRUE(boundary);
        expect_frames(got, frames, "cut at " + std::to_string(cut));
    }
}

TEST(FrameDecoder, EveryPairOfCutsOfAValidStream) {
    auto frames = sample_frames();
    frames.resize(5);  // ~150 bytes: ~11k two-cut splits
    Bytes stream = concat(frames);
    for (std::size_t a = 0; a <= stream.size(); ++a) {
        for (std::size_t b = a; b <= stream.size(); ++b) {
            bool ok = false, boundary = false;
            auto got = decode_cut(stream, {a, b}, &ok, &boundary);
            ASSERT_TRUE(ok && boundary) << "cuts " << a << "," << b;
            expect_frames(got, frames, "cuts " + std::to_string(a) + "," + std::to_string(b));
        }
    }
}

TEST(FrameDecoder, ByteByByteAndRandomChunkings) {
    auto frames = sample_frames();
    Bytes stream = concat(frames);
    std::vector<std::size_t> every(stream.size());
    for (std::size_t i = 0; i < every.size(); ++i) {
        every[i] = i;
    }
    bool ok = false, boundary = false;
    expect_frames(decode_cut(stream, every, &ok, &boundary), frames, "byte by byte");
    EXPECT_TRUE(ok && boundary);
    std::mt19937 rng(7);
    for (int round = 0; round < 2000; ++round) {
        std::vector<std::size_t> cuts;
        for (std::size_t pos = 0; pos < stream.size();) {
            pos += 1 + rng() % 40;
            cuts.push_back(std::min(pos, stream.size()));
        }
        expect_frames(decode_cut(stream, cuts, &ok, &boundary), frames,
                      "random round " + std::to_string(round));
        ASSERT_TRUE(ok && boundary);
    }
}

TEST(FrameDecoder, LargePayloadInSmallChunks) {
    Frame f;
    f.op = pmix::wire::kFirstUserOp;
    f.payload = wiretest::make_payload(3u << 20, 99);  // larger than the initial reservation
    Bytes stream = pmix::wire::encode_frame(f);
    FrameDecoder d;
    std::vector<Frame> out;
    for (std::size_t at = 0; at < stream.size(); at += 4093) {
        std::size_t n = std::min<std::size_t>(4093, stream.size() - at);
        ASSERT_TRUE(d.feed(std::span(stream.data() + at, n), out));
    }
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(same(out[0], f));
}

TEST(FrameDecoder, TruncatedStreamIsNotAtABoundary) {
    auto frames = sample_frames();
    Bytes stream = concat(frames);
    Bytes first = pmix::wire::encode_frame(frames[0]);
    Bytes second = pmix::wire::encode_frame(frames[1]);
    for (std::size_t keep = first.size() + 1; keep < first.size() + second.size(); ++keep) {
        FrameDecoder d;
        std::vector<Frame> out;
        ASSERT_TRUE(d.feed(std::span(stream.data(), keep), out));
        EXPECT_EQ(out.size(), 1u);
        EXPECT_FALSE(d.at_boundary()) << "kept " << keep;
        EXPECT_EQ(d.partial_bytes(), keep - first.size());
        if (keep - first.size() >= kHeaderSize) {
            EXPECT_EQ(d.partial_needed(), second.size());
        }
    }
}

struct Corruption {
    const char* name;
    std::size_t offset;  // byte changed in the second frame's header
    std::uint8_t value;
    DecodeError expected;
    const char* reason_has;  // a word the reason must contain
};

TEST(FrameDecoder, EveryCorruptionKindIsRefusedWithAReason) {
    const Corruption cases[] = {
        {"magic byte 0", 0, 'X', DecodeError::bad_magic, "magic"},
        {"magic byte 1", 1, 'm', DecodeError::bad_magic, "magic"},
        {"magic byte 2", 2, 0, DecodeError::bad_magic, "magic"},
        {"magic byte 3", 3, 'w', DecodeError::bad_magic, "magic"},
        {"version", 4, 9, DecodeError::bad_version, "version"},
        {"version high byte", 5, 1, DecodeError::bad_version, "version"},
        {"unknown flag", 6, 0x02, DecodeError::bad_flags, "flag"},
        {"unknown high flag", 7, 0x80, DecodeError::bad_flags, "flag"},
        {"reserved", 20, 1, DecodeError::bad_reserved, "reserved"},
        {"reserved last byte", 23, 0xFF, DecodeError::bad_reserved, "reserved"},
        {"oversized length", 19, 0x10, DecodeError::too_large, "limit"},
    };
    auto frames = sample_frames();
    Bytes first = pmix::wire::encode_frame(frames[0]);
    for (const auto& c : cases) {
        Bytes stream = concat(frames);
        stream[first.size() + c.offset] = c.value;
        // Byte by byte: the frame before the damage is delivered; the damage is refused as soon
        // as the header proves it (magic at that very byte, the rest once the header is whole).
        FrameDecoder d;
        std::vector<Frame> out;
        std::size_t failed_at = stream.size();
        for (std::size_t i = 0; i < stream.size(); ++i) {
            if (!d.feed(std::span(stream.data() + i, 1), out)) {
                failed_at = i;
                break;
            }
        }
        SCOPED_TRACE(c.name);
        EXPECT_EQ(out.size(), 1u);
        EXPECT_EQ(d.error(), c.expected);
        EXPECT_NE(d.reason().find(c.reason_has), std::string::npos) << d.reason();
        std::size_t expect_at =
            first.size() + (c.expected == DecodeError::bad_magic ? c.offset : kHeaderSize - 1);
        EXPECT_EQ(failed_at, expect_at);
        // Sticky: nothing after the damage is trusted.
        Bytes good = pmix::wire::encode_frame(frames[0]);
        EXPECT_FALSE(d.feed(good, out));
        EXPECT_EQ(out.size(), 1u);
    }
}

TEST(FrameDecoder, PayloadLimitIsConfigurableAndInclusive) {
    Frame f;
    f.payload = wiretest::make_payload(100, 1);
    Bytes stream = pmix::wire::encode_frame(f);
    std::vector<Frame> out;
    FrameDecoder at_limit(100);
    EXPECT_TRUE(at_limit.feed(stream, out));
    EXPECT_EQ(out.size(), 1u);
    FrameDecoder below(99);
    EXPECT_FALSE(below.feed(stream, out));
    EXPECT_EQ(below.error(), DecodeError::too_large);
    // The default limit is 64 MiB: one byte more is refused from the header alone.
    auto h = pmix::wire::encode_header(0, 0, 0, pmix::wire::kDefaultMaxPayload + 1);
    FrameDecoder def;
    EXPECT_FALSE(def.feed(h, out));
    EXPECT_EQ(def.error(), DecodeError::too_large);
    auto h2 = pmix::wire::encode_header(0, 0, 0, pmix::wire::kDefaultMaxPayload);
    FrameDecoder def2;
    EXPECT_TRUE(def2.feed(h2, out));  // accepted header; the payload simply has not come yet
    EXPECT_FALSE(def2.at_boundary());
}

TEST(FrameDecoder, RandomGarbageAndMutationsNeverCrash) {
    std::mt19937 rng(2024);
    std::vector<Frame> out;
    for (int round = 0; round < 3000; ++round) {
        Bytes junk(rng() % 200);
        for (auto& b : junk) {
            b = static_cast<std::uint8_t>(rng());
        }
        if (round % 2 == 0 && junk.size() >= 4) {
            std::copy(pmix::wire::kMagic.begin(), pmix::wire::kMagic.end(), junk.begin());
        }
        FrameDecoder d(1024);
        out.clear();
        bool ok = d.feed(junk, out);
        EXPECT_EQ(ok, !d.failed());
        EXPECT_EQ(d.failed(), !d.reason().empty());
    }
    Bytes stream = concat(sample_frames());
    for (int round = 0; round < 3000; ++round) {
        Bytes m = stream;
        for (int k = 0; k < 3; ++k) {
            m[rng() % m.size()] = static_cast<std::uint8_t>(rng());
        }
        FrameDecoder d(1024);
        out.clear();
        bool ok = d.feed(m, out);
        EXPECT_EQ(ok, !d.failed());
        for (const auto& f : out) {
            EXPECT_LE(f.payload.size(), 1024u);
        }
    }
}

TEST(FrameDecoder, ErrorNamesAreDistinct) {
    const DecodeError all[] = {DecodeError::none,         DecodeError::bad_magic,
                               DecodeError::bad_version,  DecodeError::bad_flags,
                               DecodeError::bad_reserved, DecodeError::too_large};
    std::set<std::string> names;
    for (auto e : all) {
        names.insert(pmix::wire::to_string(e));
    }
    EXPECT_EQ(names.size(), std::size(all));
}

}  // namespace
