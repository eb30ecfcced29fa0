// pmixrun's output formats and files (launcher/output.h): each option's exact bytes, lines split
// and joined across chunks, the end of a stream, merge, files and :nocopy.
#include "output.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace pmix::launcher {
namespace {

constexpr std::time_t kNoon = 1700000000;  // a fixed clock for the timestamps
std::time_t fixed_clock(std::time_t* out) {
    if (out != nullptr) *out = kNoon;
    return kNoon;
}
std::string ctime_of(std::time_t t) {
    char buf[64] = {};
    ::ctime_r(&t, buf);
    std::string s(buf);
    s.pop_back();  // ctime's newline
    return s;
}

std::string format(OutputOptions o, OutputChannel ch, std::string_view piece,
                   std::string_view nspace = "pmixrun.42") {
    return format_output(o, nspace, 3, ch, piece, kNoon);
}

TEST(OutputFormat, EachOption) {
    OutputOptions none, tag, full, stamp, both, xml, xmltag, xmlstamp, raw;
    tag.tag = full.tag_fullname = stamp.timestamp = xml.xml = raw.raw = true;
    both.tag = both.timestamp = true;
    xmltag.xml = xmltag.tag = true;
    xmlstamp.xml = xmlstamp.timestamp = true;
    const std::string when = ctime_of(kNoon);
    EXPECT_EQ(format(none, OutputChannel::out, "a b\n"), "a b\n");
    EXPECT_EQ(format(raw, OutputChannel::out, "a\nb"), "a\nb");
    EXPECT_EQ(format(tag, OutputChannel::out, "x\n"), "[pmixrun.42,3]<stdout>: x\n");
    EXPECT_EQ(format(tag, OutputChannel::err, "x\n"), "[pmixrun.42,3]<stderr>: x\n");
    // The job id after '@' (OpenPMIx's "prterun-host-123@1"), the whole name with tag-fullname.
    EXPECT_EQ(format(tag, OutputChannel::out, "x\n", "prte-h-9@1"), "[1,3]<stdout>: x\n");
    EXPECT_EQ(format(full, OutputChannel::out, "x\n", "prte-h-9@1"), "[prte-h-9@1,3]<stdout>: x\n");
    EXPECT_EQ(format(stamp, OutputChannel::out, "x\n"), "[" + when + "]<stdout>: x\n");
    EXPECT_EQ(format(both, OutputChannel::err, "x\n"), "[" + when + "][pmixrun.42,3]<stderr>: x\n");
    EXPECT_EQ(format(xml, OutputChannel::out, "a<&>\x01\n"),
              "<stdout rank=\"3\">a&lt;&amp;&gt;&#001;&#010;</stdout>\n");
    EXPECT_EQ(format(xmltag, OutputChannel::err, "x", "pmixrun.42"),
              "<stderr nspace=\"pmixrun.42\" rank=\"3\">x</stderr>\n");
    EXPECT_EQ(format(xmltag, OutputChannel::err, "x", "p@7"),
              "<stderr jobid=\"7\" rank=\"3\">x</stderr>\n");
    EXPECT_EQ(format(xmlstamp, OutputChannel::out, "x"),
              "<stdout rank=\"3\" timestamp=\"" + when + "\">x</stdout>\n");
}

TEST(OutputFormat, FileNames) {
    OutputOptions dir, file, merged;
    dir.directory = "/d";
    file.file = "/f/out";
    merged.directory = "/d";
    merged.merge = true;
    EXPECT_EQ(output_file_path(dir, "ns", 3, OutputChannel::out, 1), "/d/ns/rank.3/stdout");
    EXPECT_EQ(output_file_path(dir, "ns", 3, OutputChannel::err, 3), "/d/ns/rank.003/stderr");
    EXPECT_EQ(output_file_path(merged, "ns", 3, OutputChannel::err, 1), "/d/ns/rank.3/stdout");
    EXPECT_EQ(output_file_path(file, "ns", 12, OutputChannel::out, 2), "/f/out.ns.12.out");
    EXPECT_EQ(output_file_path(file, "ns", 2, OutputChannel::err, 2), "/f/out.ns.02.err");
    EXPECT_EQ(output_file_path(OutputOptions(), "ns", 2, OutputChannel::err, 1), "");
}

// A printer whose terminal is two temporary files.
struct Captured {
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    OutputPrinter printer;
    explicit Captured(const OutputOptions& o, std::size_t job_size = 2) {
        printer.configure(o, job_size);
        printer.set_terminal(out, err);
        printer.set_clock(&fixed_clock);
    }
    ~Captured() {
        std::fclose(out);
        std::fclose(err);
    }
    static std::string text(std::FILE* f) {
        std::fflush(f);
        std::rewind(f);
        std::string s;
        for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
        return s;
    }
};

const OutputSource kRank0{"pmixrun.42", 0, "0"};
const OutputSource kSpawned{"pmixrun.42.1", 2, "1.2"};

TEST(OutputPrinter, DefaultLinesAcrossChunks) {
    Captured c{OutputOptions()};
    c.printer.print(kRank0, OutputChannel::out, "one\ntw");
    c.printer.print(kSpawned, OutputChannel::err, "e1\n");
    c.printer.print(kRank0, OutputChannel::out, "o\nthr");
    c.printer.end(kRank0, OutputChannel::out);  // the last line lacks its newline: it gets one
    EXPECT_EQ(Captured::text(c.out), "[0] one\n[0] two\n[0] thr\n");
    EXPECT_EQ(Captured::text(c.err), "[1.2] e1\n");
}

TEST(OutputPrinter, RawIsUnchangedAndMergeGoesToStdout) {
    OutputOptions o;
    o.raw = o.merge = true;
    Captured c{o};
    const std::string binary("a\0b\n\xff", 5);
    c.printer.print(kRank0, OutputChannel::out, binary);
    c.printer.print(kRank0, OutputChannel::err, "e");
    c.printer.end(kRank0, OutputChannel::out);
    EXPECT_EQ(Captured::text(c.out), binary + "e");
    EXPECT_EQ(Captured::text(c.err), "");
}

TEST(OutputPrinter, TaggedLinesWaitForTheirEnd) {
    OutputOptions o;
    o.tag = true;
    Captured c{o};
    c.printer.print(kRank0, OutputChannel::out, "par");
    EXPECT_EQ(Captured::text(c.out), "");
    c.printer.print(kRank0, OutputChannel::out, "tial\nnext");
    c.printer.end(kRank0, OutputChannel::out);
    EXPECT_EQ(Captured::text(c.out),
              "[pmixrun.42,0]<stdout>: partial\n[pmixrun.42,0]<stdout>: next");
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(OutputPrinter, FilesAndNocopy) {
    char dir[] = "/tmp/pmix-output-test.XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    OutputOptions o;
    o.directory = std::string(dir) + "/sub";
    o.nocopy = true;
    std::string error;
    ASSERT_TRUE(prepare_output(o, error)) << error;
    {
        Captured c{o, 12};  // 12 processes: ranks are two digits wide
        c.printer.print(kRank0, OutputChannel::out, "o1\no2");
        c.printer.print(kRank0, OutputChannel::err, "e1\n");
        c.printer.end(kRank0, OutputChannel::out);
        EXPECT_EQ(Captured::text(c.out), "");  // :nocopy
        EXPECT_EQ(Captured::text(c.err), "");
    }
    const std::string base = o.directory + "/pmixrun.42/rank.00/";
    EXPECT_EQ(slurp(base + "stdout"), "o1\no2");  // no "[rank] " label in files
    EXPECT_EQ(slurp(base + "stderr"), "e1\n");
    OutputOptions bad;
    bad.directory = base + "stdout/x";  // under a plain file
    EXPECT_FALSE(prepare_output(bad, error));
    EXPECT_NE(error.find("Not a directory"), std::string::npos) << error;
    EXPECT_EQ(std::system(("rm -rf " + std::string(dir)).c_str()), 0);
}

size_t open_descriptors() {
    size_t count = 0;
    for (int fd = 0; fd < 1024; ++fd) count += ::fcntl(fd, F_GETFD) != -1 ? 1 : 0;
    return count;
}

// A persistent launcher closes an ended job's files; the other jobs' stay open.
TEST(OutputPrinter, CloseFilesOfOneJob) {
    char dir[] = "/tmp/pmix-output-test.XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    OutputOptions o;
    o.directory = dir;
    o.nocopy = true;
    Captured c{o};
    const size_t before = open_descriptors();
    const OutputSource other{"pmixrun.43", 0, "1.0"};
    c.printer.print(kRank0, OutputChannel::out, "a\n");
    c.printer.print(kRank0, OutputChannel::err, "b\n");
    c.printer.print(other, OutputChannel::out, "c\n");
    EXPECT_EQ(open_descriptors(), before + 3);
    c.printer.close_files_of("pmixrun.42");
    EXPECT_EQ(open_descriptors(), before + 1);
    c.printer.print(other, OutputChannel::out, "d\n");  // still open, not truncated
    EXPECT_EQ(slurp(std::string(dir) + "/pmixrun.43/rank.0/stdout"), "c\nd\n");
    EXPECT_EQ(slurp(std::string(dir) + "/pmixrun.42/rank.0/stderr"), "b\n");
    c.printer.close_files_of("pmixrun.43");
    EXPECT_EQ(open_descriptors(), before);
    EXPECT_EQ(std::system(("rm -rf " + std::string(dir)).c_str()), 0);
}

}  // namespace
}  // namespace pmix::launcher
