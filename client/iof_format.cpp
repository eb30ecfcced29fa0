// client/iof_format.cpp - see iof_format.h.
#include "iof_format.h"

#include "data/directives.h"

#include <cctype>
#include <cstdio>
#include <cstring>

namespace pmix::client {

namespace {

const char* channel_name(pmix_iof_channel_t channel) {
    if ((channel & PMIX_FWD_STDOUT_CHANNEL) != 0) return "stdout";
    if ((channel & PMIX_FWD_STDERR_CHANNEL) != 0) return "stderr";
    return "stddiag";
}

std::string rank_text(pmix_rank_t rank) {
    if (rank == PMIX_RANK_WILDCARD) return "WILDCARD";
    if (rank == PMIX_RANK_UNDEF) return "UNDEF";
    return std::to_string(rank);
}

std::string nspace_of(const pmix_proc_t& p) {
    return std::string(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN));
}

std::string xml_escaped(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '&') {
            out += "&amp;";
        } else if (c == '<') {
            out += "&lt;";
        } else if (c == '>') {
            out += "&gt;";
        } else if (std::isprint(c) == 0) {
            char q[16];
            std::snprintf(q, sizeof q, "&#%03d;", static_cast<int>(ch));  // as OpenPMIx: signed
            out += q;
        } else {
            out += ch;
        }
    }
    return out;
}

}  // namespace

IofFormat parse_iof_format(const pmix_info_t* info, std::size_t ninfo) {
    IofFormat f;
    f.tag = data::info_true(info, ninfo, PMIX_IOF_TAG_OUTPUT);
    f.tag_fullname = data::info_true(info, ninfo, PMIX_IOF_TAG_FULLNAME_OUTPUT);
    f.rank = data::info_true(info, ninfo, PMIX_IOF_RANK_OUTPUT);
    f.timestamp = data::info_true(info, ninfo, PMIX_IOF_TIMESTAMP_OUTPUT);
    f.xml = data::info_true(info, ninfo, PMIX_IOF_XML_OUTPUT);
    f.raw = data::info_true(info, ninfo, PMIX_IOF_OUTPUT_RAW);
    return f;
}

std::string decorate_output(const IofFormat& f, const pmix_proc_t& source,
                            pmix_iof_channel_t channel, std::string_view text, std::time_t now) {
    const std::string suffix = channel_name(channel);
    const std::string ns = nspace_of(source);
    const auto at = ns.rfind('@');
    const std::string jobid = at == std::string::npos ? ns : ns.substr(at + 1);
    const std::string rank = rank_text(source.rank);
    std::string begin, stamp, tag;
    if (f.xml) {
        if (f.tag) {
            begin = "<" + suffix + (at == std::string::npos ? " nspace=\"" : " jobid=\"") + jobid +
                    "\" rank=\"" + rank + "\"";
        } else if (f.tag_fullname) {
            begin = "<" + suffix + " nspace=\"" + ns + "\" rank=\"" + rank + "\"";
        } else {
            begin = "<" + suffix + " rank=\"" + rank + "\"";
        }
    } else if (f.tag) {
        tag = "[" + jobid + "," + rank + "]<" + suffix + ">: ";
    } else if (f.tag_fullname) {
        tag = "[" + ns + "," + rank + "]<" + suffix + ">: ";
    } else if (f.rank) {
        tag = "[" + rank + "]<" + suffix + ">: ";
    }
    if (f.timestamp) {
        char buf[64] = {};
        ctime_r(&now, buf);
        std::string when(buf);
        if (!when.empty() && when.back() == '\n') when.pop_back();
        if (f.xml) {
            stamp = " timestamp=\"" + when + "\"";
        } else if (f.tag || f.rank) {
            stamp = "[" + when + "]";
        } else {
            stamp = "[" + when + "]<" + suffix + ">: ";
        }
    }
    std::string out = begin + stamp + tag;
    if (f.xml) {
        out += ">" + xml_escaped(text) + "</" + suffix + ">\n";
    } else {
        out += text;
    }
    return out;
}

std::string format_stream(const IofFormat& f, const pmix_proc_t& source, pmix_iof_channel_t channel,
                          std::string& residual, std::string_view incoming, std::time_t now) {
    if (!f.any()) return std::string(incoming);
    if (f.raw)
        return incoming.empty() ? std::string()
                                : decorate_output(f, source, channel, incoming, now);
    residual.append(incoming);
    std::string out;
    std::size_t start = 0;
    for (std::size_t nl = residual.find('\n'); nl != std::string::npos;
         nl = residual.find('\n', start)) {
        out += decorate_output(f, source, channel,
                               std::string_view(residual).substr(start, nl + 1 - start), now);
        start = nl + 1;
    }
    residual.erase(0, start);
    return out;
}

}  // namespace pmix::client
