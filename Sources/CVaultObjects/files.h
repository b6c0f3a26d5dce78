// Small POSIX helpers shared by the object writers (objects.c, blobs.c). Private to CVaultObjects.
#ifndef CVAULT_FILES_H
#define CVAULT_FILES_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

/// Writes all of `bytes`, going on after short writes and interruptions; -1 with errno set.
static inline int cvault_write_all(int fd, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t n = write(fd, bytes, count);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += n;
        count -= (size_t)n;
    }
    return 0;
}

/// Flushes a folder's entries (new and renamed files) to disk.
static inline int cvault_fsync_folder(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int result = fsync(fd);
    close(fd);
    return result;
}

#endif
