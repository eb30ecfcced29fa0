// The socket file's rules: 0700 directory, 0600 socket, stale sockets removed only when
// nobody answers, our own files removed at close and nothing else.
#include "helpers.h"

#include "wire/unix_socket.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using pmix::wire::connect_unix;
using pmix::wire::listen_unix;
using pmix::wire::remove_listening_files;

mode_t mode_of(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

TEST(UnixSocket, CreatesAPrivateDirectoryAndSocket) {
    wiretest::TempDir tmp;
    std::string dir = tmp.file("session");
    std::string path = dir + "/server.sock";
    auto l = listen_unix(path, 16);
    ASSERT_TRUE(l.ok()) << l.error;
    EXPECT_EQ(mode_of(dir), 0700u);
    EXPECT_EQ(mode_of(path), 0600u);
    EXPECT_TRUE(l.value.created_dir);
    auto c = connect_unix(path);
    EXPECT_TRUE(c.ok()) << c.error;
    remove_listening_files(l.value);
    EXPECT_FALSE(exists(path));
    EXPECT_FALSE(exists(dir));  // we made it and it is empty
}

TEST(UnixSocket, ExistingDirectoryMustBePrivate) {
    wiretest::TempDir tmp;
    std::string dir = tmp.file("open");
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);  // umask-proof
    auto l = listen_unix(dir + "/s.sock", 16);
    EXPECT_EQ(l.status, PMIX_ERR_NO_PERMISSIONS);
    EXPECT_NE(l.error.find("0755"), std::string::npos) << l.error;
    EXPECT_EQ(mode_of(dir), 0755u);  // refused, not "fixed"
    // Our existing private directory is used, and kept at close.
    auto ok = listen_unix(tmp.file("s.sock"), 16);
    ASSERT_TRUE(ok.ok()) << ok.error;
    EXPECT_FALSE(ok.value.created_dir);
    remove_listening_files(ok.value);
    EXPECT_TRUE(exists(tmp.path()));
}

TEST(UnixSocket, DirectoryOfAnotherUserIsRefused) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to create a directory owned by someone else";
    }
    wiretest::TempDir tmp;
    std::string dir = tmp.file("theirs");
    ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
    ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
    auto l = listen_unix(dir + "/s.sock", 16);
    EXPECT_EQ(l.status, PMIX_ERR_NO_PERMISSIONS);
    EXPECT_NE(l.error.find("uid 65534"), std::string::npos) << l.error;
}

TEST(UnixSocket, StaleSocketIsReplacedLiveOneIsNot) {
    wiretest::TempDir tmp;
    std::string path = tmp.file("s.sock");
    auto first = listen_unix(path, 16);
    ASSERT_TRUE(first.ok()) << first.error;
    auto second = listen_unix(path, 16);  // the first still answers
    EXPECT_EQ(second.status, PMIX_ERR_EXISTS);
    EXPECT_NE(second.error.find("already listening"), std::string::npos) << second.error;
    EXPECT_TRUE(exists(path));
    first.value.fd.reset();  // the server "dies" without removing its file
    ASSERT_TRUE(exists(path));
    auto third = listen_unix(path, 16);
    ASSERT_TRUE(third.ok()) << third.error;
    EXPECT_TRUE(connect_unix(path).ok());
    // The dead server's cleanup must not remove the new server's file.
    remove_listening_files(first.value);
    EXPECT_TRUE(exists(path));
    remove_listening_files(third.value);
    EXPECT_FALSE(exists(path));
}

TEST(UnixSocket, NonSocketFileIsNeverRemoved) {
    wiretest::TempDir tmp;
    std::string path = tmp.file("precious.txt");
    int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ::close(fd);
    auto l = listen_unix(path, 16);
    EXPECT_EQ(l.status, PMIX_ERR_EXISTS);
    EXPECT_NE(l.error.find("not a socket"), std::string::npos);
    EXPECT_TRUE(exists(path));
}

TEST(UnixSocket, BadPathsAreRefused) {
    EXPECT_EQ(listen_unix("", 16).status, PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(listen_unix("relative.sock", 16).status, PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(listen_unix("/", 16).status, PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(listen_unix("/tmp/dir/", 16).status, PMIX_ERR_BAD_PARAM);
    std::string longest(pmix::wire::max_socket_path() + 1, 'a');
    longest[0] = '/';
    longest[10] = '/';
    EXPECT_EQ(listen_unix(longest, 16).status, PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(connect_unix(longest).status, PMIX_ERR_BAD_PARAM);
}

TEST(UnixSocket, ConnectToNothingIsUnreachable) {
    wiretest::TempDir tmp;
    auto c = connect_unix(tmp.file("nobody.sock"));
    EXPECT_EQ(c.status, PMIX_ERR_UNREACH);
    EXPECT_FALSE(c.error.empty());
}

TEST(UnixSocket, ConnectedSocketIsNonBlockingAndCloseOnExec) {
    wiretest::TempDir tmp;
    auto l = listen_unix(tmp.file("s.sock"), 16);
    ASSERT_TRUE(l.ok());
    auto c = connect_unix(l.value.path);
    ASSERT_TRUE(c.ok());
    EXPECT_NE(::fcntl(c.value.get(), F_GETFL) & O_NONBLOCK, 0);
    EXPECT_NE(::fcntl(c.value.get(), F_GETFD) & FD_CLOEXEC, 0);
    EXPECT_NE(::fcntl(l.value.fd.get(), F_GETFD) & FD_CLOEXEC, 0);
    remove_listening_files(l.value);
}

}  // namespace
