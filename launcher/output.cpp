// launcher/output.cpp - see output.h.
#include "output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace pmix::launcher {
namespace {

constexpr mode_t kDirMode = S_IRWXU | S_IRGRP | S_IXGRP;  // as the library (and OpenPMIx)

const char* stream_name(OutputChannel channel) {
    return channel == OutputChannel::out ? "stdout" : "stderr";
}

std::string escaped_for_xml(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 16);
    for (const char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            default:
                if (std::isprint(static_cast<unsigned char>(c)) != 0) {
                    out += c;
                } else {  // three digits of the (signed) char, as OpenPMIx prints it
                    char code[16];
                    std::snprintf(code, sizeof code, "&#%03d;", static_cast<int>(c));
                    out += code;
                }
        }
    }
    return out;
}

std::string ctime_text(std::time_t now) {
    char buf[64] = {};
    ::ctime_r(&now, buf);
    std::string text(buf);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

// mkdir -p; 0 or the errno of the step that failed.
int make_directories(const std::string& path) {
    for (std::size_t at = 1; at != std::string::npos && at <= path.size();) {
        at = path.find('/', at);
        const std::string prefix = path.substr(0, at);
        if (::mkdir(prefix.c_str(), kDirMode) != 0 && errno != EEXIST) return errno;
        if (at != std::string::npos) ++at;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno;
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

std::string parent_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

void write_fully(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

}  // namespace

std::string format_output(const OutputOptions& o, std::string_view nspace, std::uint32_t rank,
                          OutputChannel channel, std::string_view piece, std::time_t now) {
    if (!o.formatted()) return std::string(piece);
    const std::string stream = stream_name(channel);
    const std::string r = std::to_string(rank);
    const auto at = nspace.rfind('@');
    const std::string_view jobid = at == std::string_view::npos ? nspace : nspace.substr(at + 1);
    if (o.xml) {
        std::string open = "<" + stream;
        if (o.tag) {
            open += at == std::string_view::npos ? " nspace=\"" : " jobid=\"";
            open += std::string(jobid) + "\"";
        } else if (o.tag_fullname) {
            open += " nspace=\"" + std::string(nspace) + "\"";
        }
        open += " rank=\"" + r + "\"";
        if (o.timestamp) open += " timestamp=\"" + ctime_text(now) + "\"";
        return open + ">" + escaped_for_xml(piece) + "</" + stream + ">\n";
    }
    std::string head;
    const bool tagged = o.tag || o.tag_fullname;
    if (o.timestamp) head = "[" + ctime_text(now) + "]" + (tagged ? "" : "<" + stream + ">: ");
    if (tagged) {
        head += "[" + std::string(o.tag ? jobid : nspace) + "," + r + "]<" + stream + ">: ";
    }
    return head + std::string(piece);
}

std::string output_file_path(const OutputOptions& o, std::string_view nspace, std::uint32_t rank,
                             OutputChannel channel, int digits) {
    std::string r = std::to_string(rank);
    if (static_cast<int>(r.size()) < digits)
        r.insert(0, static_cast<std::size_t>(digits) - r.size(), '0');
    const bool to_out = o.merge || channel == OutputChannel::out;
    if (!o.directory.empty())
        return o.directory + "/" + std::string(nspace) + "/rank." + r +
               (to_out ? "/stdout" : "/stderr");
    if (!o.file.empty())
        return o.file + "." + std::string(nspace) + "." + r + (to_out ? ".out" : ".err");
    return {};
}

bool prepare_output(const OutputOptions& o, std::string& error) {
    const std::string dir = !o.directory.empty() ? o.directory
                            : !o.file.empty()    ? parent_of(o.file)
                                                 : std::string();
    if (dir.empty()) return true;
    int err = make_directories(dir);
    if (err == 0 && ::access(dir.c_str(), W_OK | X_OK) != 0) err = errno;
    if (err != 0) error = "cannot write output files in " + dir + ": " + std::strerror(err);
    return err == 0;
}

OutputPrinter::~OutputPrinter() {
    for (auto& [path, fd] : files_)
        if (fd >= 0) ::close(fd);
}

void OutputPrinter::configure(const OutputOptions& options, std::size_t job_size) {
    options_ = options;
    digits_ = 1;
    for (std::size_t n = job_size / 10; n > 0; n /= 10) ++digits_;  // OpenPMIx's width
}

int OutputPrinter::file_for(const OutputSource& source, OutputChannel channel) {
    const std::string path =
        output_file_path(options_, source.nspace, source.rank, channel, digits_);
    if (path.empty()) return -1;
    auto it = files_.find(path);
    if (it != files_.end()) return it->second;
    int fd = -1;
    int err = make_directories(parent_of(path));
    if (err == 0) {
        fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) err = errno;
    }
    if (fd < 0)
        std::fprintf(stderr, "pmixrun: cannot open %s: %s; that output goes to no file\n",
                     path.c_str(), std::strerror(err));
    files_.emplace(path, fd);
    paths_of_[std::string(source.nspace)].push_back(path);
    return fd;
}

void OutputPrinter::close_files_of(std::string_view nspace) {
    const auto it = paths_of_.find(nspace);
    if (it == paths_of_.end()) return;
    for (const std::string& path : it->second) {
        const auto file = files_.find(path);
        if (file == files_.end()) continue;
        if (file->second >= 0) ::close(file->second);
        files_.erase(file);
    }
    paths_of_.erase(it);
}

void OutputPrinter::emit_piece(const OutputSource& source, OutputChannel channel,
                               std::string_view piece) {
    const std::time_t now = clock_(nullptr);
    const std::string text =
        format_output(options_, source.nspace, source.rank, channel, piece, now);
    if (const int fd = file_for(source, channel); fd >= 0) write_fully(fd, text);
    const bool files = !options_.directory.empty() || !options_.file.empty();
    if (files && options_.nocopy) return;
    std::FILE* terminal = options_.merge || channel == OutputChannel::out ? out_ : err_;
    if (options_.formatted()) {
        std::fwrite(text.data(), 1, text.size(), terminal);
    } else {  // pmixrun's own "[label] line"; a line cut short by the end of its stream ends here
        const bool complete = !piece.empty() && piece.back() == '\n';
        std::fprintf(terminal, "[%.*s] %.*s%s", static_cast<int>(source.label.size()),
                     source.label.data(), static_cast<int>(piece.size()), piece.data(),
                     complete ? "" : "\n");
    }
    if (terminal != (channel == OutputChannel::out ? out_ : err_)) std::fflush(terminal);
}

void OutputPrinter::print(const OutputSource& source, OutputChannel channel,
                          std::string_view bytes) {
    if (bytes.empty()) return;
    if (options_.raw) return emit_piece(source, channel, bytes);
    std::string& partial = partial_[Key(std::string(source.nspace), source.rank, channel)];
    std::size_t start = 0;
    for (std::size_t nl = bytes.find('\n'); nl != std::string_view::npos;
         nl = bytes.find('\n', start)) {
        if (partial.empty()) {
            emit_piece(source, channel, bytes.substr(start, nl + 1 - start));
        } else {
            partial.append(bytes.substr(start, nl + 1 - start));
            emit_piece(source, channel, partial);
            partial.clear();
        }
        start = nl + 1;
    }
    partial.append(bytes.substr(start));
    // A line that never ends is printed in pieces of kLongestLine (bounded memory).
    if (partial.size() >= kLongestLine) {
        emit_piece(source, channel, partial);
        partial.clear();
    }
}

void OutputPrinter::end(const OutputSource& source, OutputChannel channel) {
    auto it = partial_.find(Key(std::string(source.nspace), source.rank, channel));
    if (it == partial_.end()) return;
    if (!it->second.empty()) emit_piece(source, channel, it->second);
    partial_.erase(it);
}

void OutputPrinter::flush() {
    std::fflush(out_);
    std::fflush(err_);
}

OutputPrinter& output_printer() {
    static OutputPrinter printer;
    return printer;
}

}  // namespace pmix::launcher
