// launcher/output.h - how pmixrun prints its ranks' output and writes it to files (the options of
// OutputOptions, options.h). Everything the launcher prints of a rank goes through print(): the
// ranks pmixrun started itself and, at the head of a multi-node job, the chunks its daemons send.
//
// pmixrun cannot have the library do this: the launcher uses the public API only, and
// PMIx_IOF_pull (whose NULL-callback handler formats and writes files, client/iof_files.h) is a
// client's and tool's call that a server process is refused; and it would print on the library's
// thread, away from the loop that reads the ranks' pipes, so the loop's back-pressure and the
// "everything printed before pmixrun exits" guarantee would be lost. So this is a formatter of its
// own, the same formats byte for byte as the library's (OpenPMIx 4.2.2's write_output_line):
//   default (no format option)  "[<label>] <line>\n"; a last line without its newline gets one
//   --tag-output        "[<jobid>,<rank>]<stdout>: " (jobid: the nspace after its last '@', else
//                       the whole nspace); --output tag-fullname: the whole nspace
//   --timestamp-output  "[<ctime>]" before the tag; without a tag "[<ctime>]<stdout>: "
//   --xml               <stdout rank="R"[ timestamp="..."]>text</stdout>\n, '&' '<' '>' and
//                       unprintable bytes (the newline too) escaped: &amp; &lt; &gt; &#NNN;
//   --raw-output        chunks as they come, decorated (if asked) as a whole, never waiting for
//                       the end of a line; alone: the bytes unchanged
// Files (--output-filename DIR, --output dir=DIR / file=F) are named as the library names them
// (DIR/<nspace>/rank.<r>/stdout|stderr, F.<nspace>.<r>.out|.err; <r> zero-padded to the digits
// of the job size, as OpenPMIx), get the formatted text without pmixrun's default "[rank] " label,
// and stderr goes into the stdout file with --merge-stderr-to-stdout.
#pragma once

#include "options.h"

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace pmix::launcher {

// The process an output chunk comes from.
struct OutputSource {
    std::string_view nspace;
    std::uint32_t rank = 0;
    std::string_view label;  // the default format's tag: "<rank>", or "<job>.<rank>" of a spawn
};

enum class OutputChannel { out, err };

class OutputPrinter {
public:
    // A partial line reaching this size is printed as it is (as if it ended there).
    static constexpr std::size_t kLongestLine = std::size_t{1} << 20;

    OutputPrinter() = default;
    ~OutputPrinter();
    OutputPrinter(const OutputPrinter&) = delete;
    OutputPrinter& operator=(const OutputPrinter&) = delete;
    // The options, and the size of the main job (the width of ranks in file names).
    void configure(const OutputOptions& options, std::size_t job_size);
    // Where the terminal output goes (tests); stdout / stderr by default.
    void set_terminal(std::FILE* out, std::FILE* err) { out_ = out, err_ = err; }
    // One chunk of a rank's stream: whole lines (raw: everything) are printed now, a partial line
    // waits for the rest of it or for end().
    void print(const OutputSource& source, OutputChannel channel, std::string_view bytes);
    // The stream ended: its partial line is printed.
    void end(const OutputSource& source, OutputChannel channel);
    // Flushes the terminal and the files.
    void flush();
    // Closes the files of a job that ended (pmixrun --dvm: a persistent launcher's jobs come and
    // go, their descriptors must not stay).
    void close_files_of(std::string_view nspace);
    // The clock of timestamps (tests); std::time by default.
    void set_clock(std::time_t (*clock)(std::time_t*)) { clock_ = clock; }

private:
    using Key = std::tuple<std::string, std::uint32_t, OutputChannel>;
    void emit_piece(const OutputSource& source, OutputChannel channel, std::string_view piece);
    int file_for(const OutputSource& source, OutputChannel channel);

    OutputOptions options_;
    int digits_ = 1;
    std::FILE* out_ = stdout;
    std::FILE* err_ = stderr;
    std::time_t (*clock_)(std::time_t*) = &std::time;
    std::map<Key, std::string> partial_;
    std::map<std::string, int> files_;  // by path; -1: could not be opened (reported once)
    std::map<std::string, std::vector<std::string>, std::less<>> paths_of_;  // by namespace
};

// The decoration of one piece (a line with its newline, or a raw chunk) in the library's formats.
std::string format_output(const OutputOptions& options, std::string_view nspace, std::uint32_t rank,
                          OutputChannel channel, std::string_view piece, std::time_t now);

// The file a rank's channel goes to ("" when the options name no file or directory).
std::string output_file_path(const OutputOptions& options, std::string_view nspace,
                             std::uint32_t rank, OutputChannel channel, int digits);

// Creates the --output-filename directory (or the --output file='s directory) before the job
// starts; false with `error` naming the path and the reason.
bool prepare_output(const OutputOptions& options, std::string& error);

// The printer of this process.
OutputPrinter& output_printer();

}  // namespace pmix::launcher
