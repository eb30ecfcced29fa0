// client/iof_files.h - output to files where forwarded output is received (PMIx_IOF_pull's
// directives). Names as OpenPMIx 4.2.2's pmix_iof_setup (src/common/pmix_iof.c) makes them, where
// the Standard says otherwise:
//   PMIX_IOF_OUTPUT_TO_FILE f       f.<nspace>.<rank>.out and f.<nspace>.<rank>.err (the Standard:
//                                   .stdout / .stderr)
//   PMIX_IOF_OUTPUT_TO_DIRECTORY d  d/<nspace>/rank.<rank>/stdout and .../stderr (both agree)
//   PMIX_IOF_FILE_PATTERN           the file name is a pattern: %n the namespace, %r the rank, %%
//                                   a '%', then .out / .err (the Standard's conversions; 4.2.2
//                                   writes "f.pattern.out" without expanding, its successors
//                                   expand as here); any other '%' conversion: PMIX_ERR_BAD_PARAM
//   PMIX_IOF_MERGE_STDERR_STDOUT    stderr goes into the stdout file (no stderr file), and into
//                                   our own stdout
//   PMIX_IOF_FILE_ONLY              no copy to our own stdout / stderr
//   PMIX_IOF_LOCAL_OUTPUT false     no copy to our own stdout / stderr (the Standard: "write
//                                   output streams to local stdout/err"; 4.2.2 also writes no file)
// <rank> is zero-padded to the digits of the job's size when the puller knows it (4.2.2: as many
// digits as the namespace's process count has). Stddiag goes with stderr. With both FILE and
// DIRECTORY the directory wins (as 4.2.2). Directories are created (mode 0750) as needed, files
// truncated (0644) when a source's first output of that stream arrives; what goes into them is
// the formatted text (tags, timestamps, XML) the handler's other directives ask for.
#pragma once

#include <pmix_common.h>

#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace pmix::client {

struct IofFileSpec {
    std::string file;       // PMIX_IOF_OUTPUT_TO_FILE
    std::string directory;  // PMIX_IOF_OUTPUT_TO_DIRECTORY
    bool pattern = false;
    bool file_only = false;
    bool merge = false;
    bool local_output = true;
    bool any_file() const noexcept { return !file.empty() || !directory.empty(); }
    // Whether a handler without a callback also writes to our own stdout / stderr.
    bool terminal_copy() const noexcept { return local_output && !(file_only && any_file()); }
};

// The directives above; PMIX_ERR_BAD_PARAM for a file or directory that is no non-empty string
// and for a pattern with a conversion other than %n, %r, %%.
pmix_status_t parse_iof_files(const pmix_info_t* info, std::size_t ninfo, IofFileSpec* out);

// The file `source`'s `channel` goes to; `digits` pads the rank (1: no padding).
std::string iof_file_path(const IofFileSpec& spec, std::string_view nspace, pmix_rank_t rank,
                          pmix_iof_channel_t channel, int digits);

// OpenPMIx's width of a rank in file names: the number of digits of `nprocs` (1 when unknown).
int rank_digits(std::size_t nprocs) noexcept;

// Creates what PMIx_IOF_pull can check before any output comes: the directory's <d>/<nspace> for
// every namespace of `procs`, the file's directory (when it has no '%'). PMIX_ERR_NO_PERMISSIONS
// when that is not allowed (or not writable), PMIX_ERR_FILE_OPEN_FAILURE for any other failure
// (a path component that is a file, ...).
pmix_status_t prepare_iof_files(const IofFileSpec& spec, const pmix_proc_t* procs,
                                std::size_t nprocs);

// The open files of one handler; used on the progress thread only.
class IofFiles {
public:
    explicit IofFiles(IofFileSpec spec) : spec_(std::move(spec)) {}
    ~IofFiles();
    IofFiles(const IofFiles&) = delete;
    IofFiles& operator=(const IofFiles&) = delete;
    const IofFileSpec& spec() const noexcept { return spec_; }
    void set_digits(std::string nspace, int digits) { digits_[std::move(nspace)] = digits; }
    // Appends `text` to the file of `source`'s `channel`, opening it at first use. A file that
    // cannot be opened or written is reported once (log_error) and its output dropped.
    void write(const pmix_proc_t& source, pmix_iof_channel_t channel, std::string_view text);

private:
    IofFileSpec spec_;
    std::map<std::string, int> digits_;
    std::map<std::string, int> fds_;  // by path; -1: failed, reported
};

}  // namespace pmix::client
