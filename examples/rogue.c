/* examples/rogue.c - bad input to the server from a process of the job, then normal work.
 *
 * Rank 0, after PMIx_Init, opens extra raw connections to its server's socket and sends garbage
 * on each: random bytes; a frame header with the wrong magic; a header announcing a 4 GiB
 * payload; a valid-looking header followed by a truncated payload and a close. The server must
 * log and close only those connections. Then every rank does Put, Commit, Fence (collect) and
 * Gets every peer's key, and prints "rogue: rank R ok (N raw connections refused)" (rank 0 also
 * reports how many of its raw connections the server closed). Public API plus the server
 * socket path from PMIX_SERVER_URI ("nspace.rank;unix:/path"; our library) or
 * PMIX_CPP_SERVER_SOCKET. */
#include <pmix.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int dial(const char* path) {
    struct sockaddr_un sa;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr*)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* True when the server closed the connection within 5 s (EOF or reset). */
static int closed_by_server(int fd) {
    struct pollfd p = {fd, POLLIN, 0};
    char buf[256];
    for (int waited = 0; waited < 5000; waited += 100) {
        if (poll(&p, 1, 100) > 0) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return 1;
        }
    }
    return 0;
}

static void header(uint8_t* h, const char* magic, uint32_t op, uint32_t length) {
    memset(h, 0, 24);
    memcpy(h, magic, 4);
    h[4] = 1; /* version 1, little endian */
    memcpy(h + 8, &op, 4);
    memcpy(h + 16, &length, 4);
}

static int send_garbage(const char* path) {
    int refused = 0;
    uint8_t buf[64];
    for (int kind = 0; kind < 4; ++kind) {
        int fd = dial(path);
        if (fd < 0) continue;
        ssize_t n = 0;
        if (kind == 0) {
            for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (uint8_t)(rand() & 0xff);
            n = write(fd, buf, sizeof buf);
        } else if (kind == 1) {
            header(buf, "XXXX", 1, 0);
            n = write(fd, buf, 24);
        } else if (kind == 2) {
            header(buf, "PMXW", 1, 0xffffffffu);
            n = write(fd, buf, 24);
        } else {
            header(buf, "PMXW", 1, 40);
            memcpy(buf + 24, "truncated", 9);
            n = write(fd, buf, 33);
            shutdown(fd, SHUT_WR);
        }
        if (n > 0 && closed_by_server(fd)) ++refused;
        close(fd);
    }
    return refused;
}

static const char* server_socket(void) {
    const char* s = getenv("PMIX_CPP_SERVER_SOCKET");
    if (s != NULL && *s) return s;
    const char* uri = getenv("PMIX_SERVER_URI");
    const char* at = uri != NULL ? strstr(uri, ";unix:") : NULL;
    return at != NULL ? at + 6 : NULL;
}

static int fail(const char* what, pmix_status_t rc) {
    fprintf(stderr, "rogue: %s failed: %s\n", what, PMIx_Error_string(rc));
    return 1;
}

int main(void) {
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Init", rc);
    int refused = 0;
    if (me.rank == 0) {
        const char* path = server_socket();
        if (path == NULL) {
            fprintf(stderr, "rogue: no server socket path in the environment\n");
            return 1;
        }
        refused = send_garbage(path);
    }
    char text[64];
    pmix_value_t v;
    snprintf(text, sizeof text, "rogue-value-%u", me.rank);
    PMIX_VALUE_LOAD(&v, text, PMIX_STRING);
    rc = PMIx_Put(PMIX_GLOBAL, "rogue.key", &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Put", rc);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS) return fail("PMIx_Commit", rc);
    pmix_info_t collect;
    int yes = 1;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Fence", rc);
    pmix_value_t* got = NULL;
    pmix_proc_t wild;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got)) != PMIX_SUCCESS)
        return fail("PMIx_Get", rc);
    uint32_t n = got->data.uint32;
    PMIX_VALUE_RELEASE(got);
    for (uint32_t r = 0; r < n; ++r) {
        pmix_proc_t peer;
        PMIX_PROC_LOAD(&peer, me.nspace, r);
        if ((rc = PMIx_Get(&peer, "rogue.key", NULL, 0, &got)) != PMIX_SUCCESS)
            return fail("PMIx_Get (peer)", rc);
        snprintf(text, sizeof text, "rogue-value-%u", r);
        if (got->type != PMIX_STRING || strcmp(got->data.string, text) != 0) {
            fprintf(stderr, "rogue: wrong value for rank %u\n", r);
            return 1;
        }
        PMIX_VALUE_RELEASE(got);
    }
    if (me.rank == 0) {
        printf("rogue: rank 0 ok (read %u peers; server closed %d of 4 raw connections)\n", n,
               refused);
    } else {
        printf("rogue: rank %u ok (read %u peers)\n", me.rank, n);
    }
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}
