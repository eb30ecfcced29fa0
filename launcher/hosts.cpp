// --host / --hostfile parsing and the block mapping of ranks over nodes (hosts.h).
#include "hosts.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pmix::launcher {
namespace {

bool parse_slots(const std::string& text, int& out) {
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 1 || value > kMaxSlots) return false;
    out = static_cast<int>(value);
    return true;
}

bool valid_name(const std::string& name) {
    if (name.empty() || name.size() > 255) return false;
    return name.find_first_of(" \t,:;=") == std::string::npos;
}

// "name" or "name:slots".
bool parse_entry(const std::string& entry, std::vector<NodeSlot>& out, std::string& error) {
    NodeSlot node;
    const size_t colon = entry.find(':');
    node.name = entry.substr(0, colon);
    if (colon != std::string::npos && !parse_slots(entry.substr(colon + 1), node.slots)) {
        error = "bad slot count in '" + entry + "' (1..4096)";
        return false;
    }
    if (!valid_name(node.name)) {
        error = "bad node name in '" + entry + "'";
        return false;
    }
    for (const NodeSlot& known : out) {
        if (known.name == node.name) {
            error = "node '" + node.name + "' given twice";
            return false;
        }
    }
    out.push_back(node);
    return true;
}

}  // namespace

bool parse_host_list(const std::string& list, std::vector<NodeSlot>& out, std::string& error) {
    std::stringstream items(list);
    std::string item;
    while (std::getline(items, item, ',')) {
        if (!parse_entry(item, out, error)) return false;
    }
    if (out.empty()) error = "no node given";
    return !out.empty();
}

bool parse_hostfile_text(const std::string& text, const std::string& source,
                         std::vector<NodeSlot>& out, std::string& error) {
    std::istringstream lines(text);
    std::string line;
    for (int line_number = 1; std::getline(lines, line); ++line_number) {
        const std::string where = source + ":" + std::to_string(line_number) + ": ";
        std::istringstream words(line.substr(0, line.find('#')));
        std::string name, extra;
        if (!(words >> name)) continue;
        std::string entry = name;
        while (words >> extra) {
            if (extra.rfind("slots=", 0) == 0 && entry.find(':') == std::string::npos) {
                entry += ":" + extra.substr(6);
            } else {
                error = where + "unexpected '" + extra + "'";
                return false;
            }
        }
        if (!parse_entry(entry, out, error)) {
            error = where + error;
            return false;
        }
    }
    if (out.empty()) error = "hostfile '" + source + "' names no node";
    return !out.empty();
}

bool parse_hostfile(const std::string& path, std::vector<NodeSlot>& out, std::string& error) {
    std::ifstream in(path);
    if (!in) {
        error = "cannot read hostfile '" + path + "'";
        return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_hostfile_text(text.str(), path, out, error);
}

bool Layout::map(uint32_t nprocs) {
    first_rank.assign(nodes.size(), 0);
    rank_count.assign(nodes.size(), 0);
    uint32_t next_rank = 0;
    for (size_t node = 0; node < nodes.size(); ++node) {
        first_rank[node] = next_rank;
        rank_count[node] =
            std::min<uint32_t>(static_cast<uint32_t>(nodes[node].slots), nprocs - next_rank);
        next_rank += rank_count[node];
    }
    return next_rank == nprocs;
}

size_t Layout::node_of(uint32_t rank) const {
    for (size_t node = 0; node < nodes.size(); ++node)
        if (rank >= first_rank[node] && rank - first_rank[node] < rank_count[node]) return node;
    return nodes.size();
}

}  // namespace pmix::launcher
