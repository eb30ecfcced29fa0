// --host / --hostfile parsing: which nodes a job runs on and how many ranks each takes.
#include "launcher.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pmix::launcher {
namespace {

bool parse_slots(const std::string& s, int& out) {
    char* end = nullptr;
    long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || v < 1 || v > 4096) return false;
    out = static_cast<int>(v);
    return true;
}

bool valid_name(const std::string& n) {
    if (n.empty() || n.size() > 255) return false;
    for (char c : n)
        if (c == ' ' || c == '\t' || c == ',' || c == ':' || c == ';' || c == '=') return false;
    return true;
}

// "name" or "name:slots".
bool parse_entry(const std::string& e, std::vector<NodeSlot>& out, std::string& why) {
    NodeSlot n;
    const size_t colon = e.find(':');
    n.name = e.substr(0, colon);
    if (colon != std::string::npos && !parse_slots(e.substr(colon + 1), n.slots)) {
        why = "bad slot count in '" + e + "' (1..4096)";
        return false;
    }
    if (!valid_name(n.name)) {
        why = "bad node name in '" + e + "'";
        return false;
    }
    for (const NodeSlot& have : out) {
        if (have.name == n.name) {
            why = "node '" + n.name + "' given twice";
            return false;
        }
    }
    out.push_back(n);
    return true;
}

}  // namespace

bool parse_host_list(const std::string& list, std::vector<NodeSlot>& out, std::string& why) {
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (!parse_entry(item, out, why)) return false;
    }
    if (out.empty()) why = "no node given";
    return !out.empty();
}

bool parse_hostfile(const std::string& path, std::vector<NodeSlot>& out, std::string& why) {
    std::ifstream in(path);
    if (!in) {
        why = "cannot read hostfile '" + path + "'";
        return false;
    }
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        line = line.substr(0, line.find('#'));
        std::stringstream ss(line);
        std::string name, extra;
        if (!(ss >> name)) continue;
        std::string entry = name;
        while (ss >> extra) {
            if (extra.rfind("slots=", 0) == 0 && entry.find(':') == std::string::npos) {
                entry += ":" + extra.substr(6);
            } else {
                why = path + ":" + std::to_string(lineno) + ": unexpected '" + extra + "'";
                return false;
            }
        }
        if (!parse_entry(entry, out, why)) {
            why = path + ":" + std::to_string(lineno) + ": " + why;
            return false;
        }
    }
    if (out.empty()) why = "hostfile '" + path + "' names no node";
    return !out.empty();
}

}  // namespace pmix::launcher
