// core/data/envar.cpp - see envar.h.
#include "data/envar.h"

#include "data/directives.h"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace pmix::data {
namespace {

struct Kind {
    const char* key;
    EnvarOp op;
};

constexpr Kind kKinds[] = {
    {PMIX_SET_ENVAR, EnvarOp::set},       {PMIX_ADD_ENVAR, EnvarOp::add},
    {PMIX_UNSET_ENVAR, EnvarOp::unset},   {PMIX_PREPEND_ENVAR, EnvarOp::prepend},
    {PMIX_APPEND_ENVAR, EnvarOp::append}, {PMIX_FIRST_ENVAR, EnvarOp::first},
};

const Kind* kind_of(const pmix_info_t& info) noexcept {
    for (const Kind& k : kKinds)
        if (key_is(info, k.key)) return &k;
    return nullptr;
}

bool joins(EnvarOp op) {
    return op == EnvarOp::prepend || op == EnvarOp::append || op == EnvarOp::first;
}

pmix_status_t check_name(const char* key, const char* name, std::size_t value_length,
                         std::string& why) {
    if (name == nullptr || *name == '\0') {
        why = std::string(key) + ": the variable's name is NULL or empty";
        return PMIX_ERR_BAD_PARAM;
    }
    const std::size_t length = strnlen(name, kMaxEnvarLength + 1);
    if (length + value_length > kMaxEnvarLength) {
        why = std::string(key) + ": name and value longer than " + std::to_string(kMaxEnvarLength) +
              " bytes";
        return PMIX_ERR_BAD_PARAM;
    }
    if (std::memchr(name, '=', length) != nullptr) {
        why = std::string(key) + ": the variable's name '" + name + "' contains '='";
        return PMIX_ERR_BAD_PARAM;
    }
    return PMIX_SUCCESS;
}

// "NAME=" prefix test of one environment entry.
bool entry_names(const std::string& entry, std::string_view name) {
    return entry.size() > name.size() && entry[name.size()] == '=' &&
           std::string_view(entry).substr(0, name.size()) == name;
}

}  // namespace

bool is_envar_directive(const pmix_info_t& info) noexcept { return kind_of(info) != nullptr; }

pmix_status_t read_envar_directive(const pmix_info_t& info, EnvarDirective& out, std::string& why) {
    const Kind* kind = kind_of(info);
    if (kind == nullptr) {
        why = "not an environment directive";
        return PMIX_ERR_BAD_PARAM;
    }
    out = EnvarDirective{};
    out.op = kind->op;
    if (kind->op == EnvarOp::unset) {
        if (info.value.type != PMIX_STRING) {
            why = std::string(kind->key) + " must be a PMIX_STRING (the variable's name)";
            return PMIX_ERR_TYPE_MISMATCH;
        }
        if (pmix_status_t rc = check_name(kind->key, info.value.data.string, 0, why);
            rc != PMIX_SUCCESS)
            return rc;
        out.name = info.value.data.string;
        return PMIX_SUCCESS;
    }
    if (info.value.type != PMIX_ENVAR) {
        why = std::string(kind->key) + " must be a PMIX_ENVAR (pmix_envar_t)";
        return PMIX_ERR_TYPE_MISMATCH;
    }
    const pmix_envar_t& e = info.value.data.envar;
    const std::size_t value_length = e.value == nullptr ? 0 : strnlen(e.value, kMaxEnvarLength + 1);
    if (pmix_status_t rc = check_name(kind->key, e.envar, value_length, why); rc != PMIX_SUCCESS)
        return rc;
    if (joins(kind->op) && e.separator == '\0') {
        why = std::string(kind->key) + " for " + e.envar + ": the separator is NUL";
        return PMIX_ERR_BAD_PARAM;
    }
    out.name = e.envar;
    out.value = e.value == nullptr ? "" : e.value;
    out.separator = e.separator;
    return PMIX_SUCCESS;
}

pmix_status_t read_envar_directives(const pmix_info_t* info, std::size_t n,
                                    std::vector<EnvarDirective>& out, std::string& why) {
    for (std::size_t i = 0; info != nullptr && i < n; ++i) {
        if (!is_envar_directive(info[i])) continue;
        EnvarDirective d;
        if (pmix_status_t rc = read_envar_directive(info[i], d, why); rc != PMIX_SUCCESS) return rc;
        out.push_back(std::move(d));
    }
    return PMIX_SUCCESS;
}

std::optional<std::string> envar_result(const EnvarDirective& d,
                                        const std::optional<std::string>& before) {
    switch (d.op) {
        case EnvarOp::set:
            return d.value;
        case EnvarOp::add:
            return before.has_value() ? before : std::optional<std::string>(d.value);
        case EnvarOp::unset:
            return std::nullopt;
        case EnvarOp::prepend:
            return before.has_value() ? d.value + d.separator + *before : d.value;
        case EnvarOp::append:
            return before.has_value() ? *before + d.separator + d.value : d.value;
        case EnvarOp::first:
            break;
    }
    std::string out = d.value;
    if (!before.has_value() || before->empty()) return out;
    std::size_t start = 0;
    while (start <= before->size()) {
        std::size_t end = before->find(d.separator, start);
        if (end == std::string::npos) end = before->size();
        const std::string_view element = std::string_view(*before).substr(start, end - start);
        if (element != d.value) (out += d.separator) += element;
        start = end + 1;
    }
    return out;
}

void apply_envar(const EnvarDirective& d, std::vector<std::string>& env) {
    auto found = std::find_if(env.begin(), env.end(),
                              [&](const std::string& e) { return entry_names(e, d.name); });
    std::optional<std::string> before;
    if (found != env.end()) before = found->substr(d.name.size() + 1);
    const std::optional<std::string> after = envar_result(d, before);
    std::erase_if(env, [&](const std::string& e) { return entry_names(e, d.name); });
    if (after.has_value()) env.push_back(d.name + "=" + *after);
}

}  // namespace pmix::data
