// client/iof_format.h - how forwarded output is formatted where it is received (PMIx_IOF_pull's
// directives), byte for byte as OpenPMIx 4.2.2's write_output_line (src/common/pmix_iof.c):
//   PMIX_IOF_TAG_OUTPUT       "[<jobid>,<rank>]<stdout>: " (jobid: the namespace after its last
//                             '@', else all of it)
//   PMIX_IOF_TAG_FULLNAME_OUTPUT  the same with the whole namespace
//   PMIX_IOF_RANK_OUTPUT      "[<rank>]<stdout>: "
//   PMIX_IOF_TIMESTAMP_OUTPUT "[<ctime>]" before the tag, or "[<ctime>]<stdout>: " alone
//   PMIX_IOF_XML_OUTPUT       <stdout rank="0"[ timestamp="..."]>text</stdout>\n, the text's '&',
//                             '<', '>' and unprintable bytes escaped (&amp; &lt; &gt; &#NNN;);
//                             with TAG the element also names nspace (or jobid)
//   (channel names: stdout, stderr, stddiag)
// Decorations go on every line: without PMIX_IOF_OUTPUT_RAW a partial line waits for its end
// (or for deregistration); with it each chunk is decorated as it comes. With no format
// directive the bytes pass untouched.
#pragma once

#include <pmix_common.h>

#include <ctime>
#include <string>
#include <string_view>

namespace pmix::client {

struct IofFormat {
    bool tag = false;
    bool tag_fullname = false;
    bool rank = false;
    bool timestamp = false;
    bool xml = false;
    bool raw = false;
    bool any() const noexcept { return tag || tag_fullname || rank || timestamp || xml; }
};

IofFormat parse_iof_format(const pmix_info_t* info, std::size_t ninfo);

// `text` of `channel` from `source`, decorated as one piece, at time `now`.
std::string decorate_output(const IofFormat& f, const pmix_proc_t& source,
                            pmix_iof_channel_t channel, std::string_view text, std::time_t now);

// Formats what arrives on one stream: complete lines (or, raw, every piece) decorated;
// `residual` holds a partial line between calls.
std::string format_stream(const IofFormat& f, const pmix_proc_t& source, pmix_iof_channel_t channel,
                          std::string& residual, std::string_view incoming, std::time_t now);

}  // namespace pmix::client
