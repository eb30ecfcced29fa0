// core/codec/pack_stats.cpp - process, disk, network and node statistics. Every field travels
// (OpenPMIx leaves out peak_vsize; we do not), in declaration order.
#include "codec/coders.h"

#include <cstdint>

namespace pmix::codec::detail {
namespace {

// The counters of disk and net stats are runs of uint64_t; listing them as member pointers keeps
// pack and unpack in the same order by construction.
constexpr std::uint64_t pmix_disk_stats_t::*k_disk_fields[] = {
    &pmix_disk_stats_t::num_reads_completed,      &pmix_disk_stats_t::num_reads_merged,
    &pmix_disk_stats_t::num_sectors_read,         &pmix_disk_stats_t::milliseconds_reading,
    &pmix_disk_stats_t::num_writes_completed,     &pmix_disk_stats_t::num_writes_merged,
    &pmix_disk_stats_t::num_sectors_written,      &pmix_disk_stats_t::milliseconds_writing,
    &pmix_disk_stats_t::num_ios_in_progress,      &pmix_disk_stats_t::milliseconds_io,
    &pmix_disk_stats_t::weighted_milliseconds_io,
};

constexpr std::uint64_t pmix_net_stats_t::*k_net_fields[] = {
    &pmix_net_stats_t::num_bytes_recvd,  &pmix_net_stats_t::num_packets_recvd,
    &pmix_net_stats_t::num_recv_errs,    &pmix_net_stats_t::num_bytes_sent,
    &pmix_net_stats_t::num_packets_sent, &pmix_net_stats_t::num_send_errs,
};

constexpr float pmix_node_stats_t::*k_node_floats[] = {
    &pmix_node_stats_t::la,        &pmix_node_stats_t::la5,         &pmix_node_stats_t::la15,
    &pmix_node_stats_t::total_mem, &pmix_node_stats_t::free_mem,    &pmix_node_stats_t::buffers,
    &pmix_node_stats_t::cached,    &pmix_node_stats_t::swap_cached, &pmix_node_stats_t::swap_total,
    &pmix_node_stats_t::swap_free, &pmix_node_stats_t::mapped,
};

constexpr float pmix_proc_stats_t::*k_proc_sizes[] = {
    &pmix_proc_stats_t::pss,
    &pmix_proc_stats_t::vsize,
    &pmix_proc_stats_t::rss,
    &pmix_proc_stats_t::peak_vsize,
};

pmix_status_t pack_one_pstats(Writer& w, const pmix_proc_stats_t& s) noexcept {
    pmix_status_t rc = pack_string(w, s.node);
    if (rc == PMIX_SUCCESS) {
        rc = pack_elements(w, &s.proc, 1, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put(w.i32(s.pid));
    }
    if (rc == PMIX_SUCCESS) {
        rc = pack_string(w, s.cmd);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put(w.u8(static_cast<std::uint8_t>(s.state)));
    }
    if (rc == PMIX_SUCCESS) {
        rc = pack_timeval(w, s.time);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put(w.f32(s.percent_cpu) && w.i32(s.priority) && w.u16(s.num_threads));
    }
    for (auto field : k_proc_sizes) {
        if (rc == PMIX_SUCCESS) {
            rc = put(w.f32(s.*field));
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = put(w.u16(s.processor));
    }
    return rc == PMIX_SUCCESS ? pack_timeval(w, s.sample_time) : rc;
}

pmix_status_t unpack_one_pstats(Reader& r, pmix_proc_stats_t& s) noexcept {
    pmix_status_t rc = unpack_string(r, s.node);
    if (rc == PMIX_SUCCESS) {
        rc = unpack_elements(r, &s.proc, 1, PMIX_PROC);
    }
    std::int32_t pid = 0;
    if (rc == PMIX_SUCCESS && (rc = got(r.i32(pid))) == PMIX_SUCCESS) {
        s.pid = pid;
    }
    if (rc == PMIX_SUCCESS) {
        rc = unpack_string(r, s.cmd);
    }
    std::uint8_t state = 0;
    if (rc == PMIX_SUCCESS && (rc = got(r.u8(state))) == PMIX_SUCCESS) {
        s.state = static_cast<char>(state);
    }
    if (rc == PMIX_SUCCESS) {
        rc = unpack_timeval(r, s.time);
    }
    if (rc == PMIX_SUCCESS) {
        rc = got(r.f32(s.percent_cpu) && r.i32(s.priority) && r.u16(s.num_threads));
    }
    for (auto field : k_proc_sizes) {
        if (rc == PMIX_SUCCESS) {
            rc = got(r.f32(s.*field));
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = got(r.u16(s.processor));
    }
    return rc == PMIX_SUCCESS ? unpack_timeval(r, s.sample_time) : rc;
}

template <typename T, std::size_t N>
pmix_status_t pack_counters(Writer& w, const T& s, char* T::*name,
                            std::uint64_t T::*const (&fields)[N]) noexcept {
    pmix_status_t rc = pack_string(w, s.*name);
    for (auto field : fields) {
        if (rc == PMIX_SUCCESS) {
            rc = put(w.u64(s.*field));
        }
    }
    return rc;
}

template <typename T, std::size_t N>
pmix_status_t unpack_counters(Reader& r, T& s, char* T::*name,
                              std::uint64_t T::*const (&fields)[N]) noexcept {
    pmix_status_t rc = unpack_string(r, s.*name);
    for (auto field : fields) {
        if (rc == PMIX_SUCCESS) {
            rc = got(r.u64(s.*field));
        }
    }
    return rc;
}

pmix_status_t pack_one_ndstats(Writer& w, const pmix_node_stats_t& s) noexcept {
    pmix_status_t rc = pack_string(w, s.node);
    for (auto field : k_node_floats) {
        if (rc == PMIX_SUCCESS) {
            rc = put(w.f32(s.*field));
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = pack_timeval(w, s.sample_time);
    }
    if (rc == PMIX_SUCCESS) {
        rc = pack_array(w, s.diskstats, s.ndiskstats, PMIX_DISK_STATS);
    }
    return rc == PMIX_SUCCESS ? pack_array(w, s.netstats, s.nnetstats, PMIX_NET_STATS) : rc;
}

pmix_status_t unpack_one_ndstats(Reader& r, pmix_node_stats_t& s) noexcept {
    pmix_status_t rc = unpack_string(r, s.node);
    for (auto field : k_node_floats) {
        if (rc == PMIX_SUCCESS) {
            rc = got(r.f32(s.*field));
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = unpack_timeval(r, s.sample_time);
    }
    void* arr = nullptr;
    if (rc == PMIX_SUCCESS &&
        (rc = unpack_array(r, arr, s.ndiskstats, PMIX_DISK_STATS)) == PMIX_SUCCESS) {
        s.diskstats = static_cast<pmix_disk_stats_t*>(arr);
    }
    arr = nullptr;
    if (rc == PMIX_SUCCESS &&
        (rc = unpack_array(r, arr, s.nnetstats, PMIX_NET_STATS)) == PMIX_SUCCESS) {
        s.netstats = static_cast<pmix_net_stats_t*>(arr);
    }
    return rc;
}

template <typename T, pmix_status_t (*One)(Writer&, const T&) noexcept>
pmix_status_t pack_each(Writer& w, const void* elems, std::size_t n) noexcept {
    const T* e = static_cast<const T*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = One(w, e[i]);
    }
    return rc;
}

template <typename T, pmix_status_t (*One)(Reader&, T&) noexcept>
pmix_status_t unpack_each(Reader& r, void* elems, std::size_t n) noexcept {
    T* e = static_cast<T*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = One(r, e[i]);
    }
    return rc;
}

pmix_status_t pack_one_dkstats(Writer& w, const pmix_disk_stats_t& s) noexcept {
    return pack_counters(w, s, &pmix_disk_stats_t::disk, k_disk_fields);
}
pmix_status_t unpack_one_dkstats(Reader& r, pmix_disk_stats_t& s) noexcept {
    return unpack_counters(r, s, &pmix_disk_stats_t::disk, k_disk_fields);
}
pmix_status_t pack_one_netstats(Writer& w, const pmix_net_stats_t& s) noexcept {
    return pack_counters(w, s, &pmix_net_stats_t::net_interface, k_net_fields);
}
pmix_status_t unpack_one_netstats(Reader& r, pmix_net_stats_t& s) noexcept {
    return unpack_counters(r, s, &pmix_net_stats_t::net_interface, k_net_fields);
}

constexpr Coder k_pstats{sizeof(pmix_proc_stats_t), 4 + 8 + 4 + 4 + 1 + 16 + 10 + 16 + 2 + 16,
                         pack_each<pmix_proc_stats_t, pack_one_pstats>,
                         unpack_each<pmix_proc_stats_t, unpack_one_pstats>};
constexpr Coder k_dkstats{sizeof(pmix_disk_stats_t), 4 + 11 * 8,
                          pack_each<pmix_disk_stats_t, pack_one_dkstats>,
                          unpack_each<pmix_disk_stats_t, unpack_one_dkstats>};
constexpr Coder k_netstats{sizeof(pmix_net_stats_t), 4 + 6 * 8,
                           pack_each<pmix_net_stats_t, pack_one_netstats>,
                           unpack_each<pmix_net_stats_t, unpack_one_netstats>};
constexpr Coder k_ndstats{sizeof(pmix_node_stats_t), 4 + 11 * 4 + 16 + 4 + 4,
                          pack_each<pmix_node_stats_t, pack_one_ndstats>,
                          unpack_each<pmix_node_stats_t, unpack_one_ndstats>};

}  // namespace

const Coder* stats_coder(pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_PROC_STATS:
            return &k_pstats;
        case PMIX_DISK_STATS:
            return &k_dkstats;
        case PMIX_NET_STATS:
            return &k_netstats;
        case PMIX_NODE_STATS:
            return &k_ndstats;
        default:
            return nullptr;
    }
}

}  // namespace pmix::codec::detail
