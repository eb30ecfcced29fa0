// core/data/info_list.cpp - PMIx_Info_list_*: an opaque, growable list of pmix_info_t.
#include "data/info_list.h"

#include "data/value.h"

#include <cstring>
#include <new>
#include <vector>

namespace pmix::data {
namespace {

// pmix_info_t is a plain C struct, so the vector may move entries bitwise when it grows; the
// payloads they own stay where they are.
class InfoList {
public:
    InfoList() = default;
    InfoList(const InfoList&) = delete;
    InfoList& operator=(const InfoList&) = delete;
    ~InfoList() {
        for (pmix_info_t& info : entries_) {
            info_destruct(&info);
        }
    }

    // Reserve a zeroed slot, let `fill` populate it, keep it only if `fill` succeeds.
    template <typename Fill>
    pmix_status_t append(Fill&& fill) noexcept {
        try {
            entries_.emplace_back();
        } catch (const std::bad_alloc&) {
            return PMIX_ERR_NOMEM;
        }
        pmix_info_t& slot = entries_.back();
        std::memset(&slot, 0, sizeof(slot));
        pmix_status_t rc = fill(slot);
        if (rc != PMIX_SUCCESS) {
            info_destruct(&slot);
            entries_.pop_back();
        }
        return rc;
    }

    const std::vector<pmix_info_t>& entries() const noexcept { return entries_; }

private:
    std::vector<pmix_info_t> entries_;
};

InfoList* as_list(void* handle) noexcept { return static_cast<InfoList*>(handle); }

}  // namespace

void* info_list_start() noexcept { return new (std::nothrow) InfoList(); }

pmix_status_t info_list_add(void* list, const char* key, const void* value,
                            pmix_data_type_t type) noexcept {
    if (list == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    return as_list(list)->append(
        [&](pmix_info_t& slot) { return info_load(&slot, key, value, type); });
}

pmix_status_t info_list_insert(void* list, pmix_info_t* info) noexcept {
    if (list == nullptr || info == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    return as_list(list)->append([&](pmix_info_t& slot) {
        slot = *info;  // shares the caller's payload on purpose
        slot.flags |= PMIX_INFO_PERSISTENT;
        return PMIX_SUCCESS;
    });
}

pmix_status_t info_list_xfer(void* list, const pmix_info_t* info) noexcept {
    if (list == nullptr || info == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    return as_list(list)->append([&](pmix_info_t& slot) { return info_xfer(&slot, info); });
}

pmix_status_t info_list_convert(void* list, pmix_data_array_t* array) noexcept {
    if (list == nullptr || array == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    array->type = PMIX_INFO;
    array->size = 0;
    array->array = nullptr;
    const std::vector<pmix_info_t>& entries = as_list(list)->entries();
    if (entries.empty()) {
        return PMIX_ERR_EMPTY;
    }
    pmix_data_array_t out;
    pmix_status_t rc = data_array_init(&out, entries.size(), PMIX_INFO);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    auto* infos = static_cast<pmix_info_t*>(out.array);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        rc = info_xfer(&infos[i], &entries[i]);
        if (rc != PMIX_SUCCESS) {
            data_array_destruct(&out);
            return rc;
        }
    }
    *array = out;
    return PMIX_SUCCESS;
}

void info_list_release(void* list) noexcept { delete as_list(list); }

}  // namespace pmix::data
