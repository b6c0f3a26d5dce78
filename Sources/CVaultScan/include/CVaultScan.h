// The file system side of `vault search`: listing the files a search reads, their stamps, and
// opening them, all relative to open folder descriptors (no path walk from the vault's root per file).
#ifndef CVAULTSCAN_H
#define CVAULTSCAN_H

#include <stddef.h>
#include <stdint.h>

/// Files listed under a vault's root: paths relative to the root, each file named by a folder
/// descriptor and a name in it.
typedef struct vs_files {
    int32_t count;
    /// The paths' bytes, each ended by a NUL; path k starts at `starts[k]`, its name (the part
    /// after the last slash) at `names[k]`.
    char *bytes;
    uint32_t *starts;
    uint32_t *names;
    /// The folder of file k: an index into `folders`.
    int32_t *folder;
    int32_t *folders;
    int32_t folder_count;
    /// Capacities (internal).
    int64_t bytes_used, bytes_capacity;
    int32_t files_capacity, folders_capacity;
    /// Every folder listed, for `vs_files_save` (internal): its path from the root, its stamp,
    /// and which entry of `folders` holds it open (-1: none).
    struct vs_folder *visited;
    int32_t visited_count, visited_capacity;
    /// The real time just before the listing began, in nanoseconds.
    int64_t listed_ns;
    /// `vs_files_list_hash`, once known (saved with the listing).
    uint64_t list_hash;
    int32_t list_hash_known;
} vs_files;

typedef struct vs_folder {
    int64_t device, inode, mtime_ns, ctime_ns;
    /// Its path from the root in `path` (no trailing slash); `top`: named by the caller (it
    /// may be a symbolic link to a folder); `missing`: a top folder that did not exist.
    char path[4096 - 48];
    int32_t slot, top, missing, pad;
} vs_folder;

/// An empty list.
void vs_files_init(vs_files *files);
/// Closes the folders and frees the memory.
void vs_files_free(vs_files *files);

/// Appends the regular files named `*.md` (not hidden, at least one character before `.md`) in
/// `folder` (relative to the open folder `root`), and with `recursive` in its subfolders (not
/// hidden), sorted by their bytes. Symbolic links are left out; a folder reached twice (a bind
/// mount) is listed once. Returns 0, or -1 when memory ran out.
int vs_files_list(vs_files *files, int root, const char *folder, int recursive);

/// Moves the files of `other` (listed under the open folder `other_root`, the same folder as
/// `root`) to the end of `files` (listed under `root`), with its folders: as if `files` had
/// listed them itself, so it can be saved. `other` is left empty, or with `keep_other` as it
/// was (its folders' descriptors duplicated for `files`). Returns 0, or -1 when memory or
/// descriptors ran out.
int vs_files_append(vs_files *files, int root, vs_files *other, int other_root, int keep_other);

/// Appends `path` (relative to the open folder `root`, which the list does not own) as it is.
int vs_files_add(vs_files *files, int root, const char *path, uint32_t length);

/// Writes the listing to `path` (through a temporary file renamed over it), so that
/// `vs_files_load` can give it again without reading the folders. Returns 0, or -1.
int vs_files_save(const vs_files *files, int root, const char *path);

/// Loads the listing saved at `path` for the open folder `root` when every folder it lists is
/// as it was (device, inode, modification and change times) and had not changed within
/// `margin_ns` before the listing began (a change in the same tick of a coarse clock could keep
/// its times); otherwise returns -1 and leaves `files` empty. A folder's times change whenever
/// a name in it is added, removed or renamed, so the same folders give the same files.
int vs_files_load(vs_files *files, int root, const char *path, int64_t margin_ns);

/// `vs_files_load` of only the files under the top folder `top` (`rooms`, `diary`), when every
/// folder under it is as it was: the diary's files are taken again after a change in `rooms/`.
int vs_files_load_top(vs_files *files, int root, const char *path, int64_t margin_ns, const char *top);

/// `StampFile.listHash` of the listed paths, in order (the same numbers as the Swift side):
/// saved with the listing, so a listing loaded again is not hashed again.
uint64_t vs_files_list_hash(vs_files *files);

/// Opens file k for reading (never following a symbolic link at the end). -1 and errno on failure.
int vs_files_open(const vs_files *files, int32_t k);

/// A file's stamp, as `FileStamp` lays it out: device, inode, size, modification and change
/// times in nanoseconds; all -1 for a path that is not a regular file (gone, a link, a folder).
typedef struct vs_stamp {
    int64_t device, inode, size, mtime_ns, ctime_ns;
} vs_stamp;

/// The stamps of files `from..<to` into `out[0..<to-from]`, on up to `threads` threads.
void vs_files_stamps(const vs_files *files, int32_t from, int32_t to, vs_stamp *out, int threads);

/// The position of `path` in a listing of `rooms`, `volumes` then `diary` (`vs_files_list`, or one loaded):
/// each top folder's files are sorted by their bytes, so each is searched by halves. -1 when
/// the path is not listed.
int32_t vs_files_find(const vs_files *files, const char *path);

/// `vs_files_find` of the `n` bytes at `path` (no NUL among them, none after them needed).
int32_t vs_files_find_bytes(const vs_files *files, const unsigned char *path, size_t n);

/// The positions `*from..<*to` of the files under the top folder `top` (`volumes`) in a listing
/// by folders (`vs_files_list`, `vs_files_append`, or one loaded), whose top folders' files are
/// together: found by halves, a few comparisons a top folder. Empty (0..<0) when none is listed.
void vs_files_top_range(const vs_files *files, const char *top, int32_t *from, int32_t *to);

/// Checks the lines of a listing cache (VaultCore's `ListingCache`) from `start` to `end` of
/// `bytes` against the listed files, on two threads: a line holds when its path (kept escaped:
/// `\\`, `\t`, `\n`) is listed, by no earlier line, its settled flag is 1, and the file is a
/// regular file with the line's stamp (device, inode, size, modification and change times).
/// Sets `seen[k]` for each listed file a line names, and `*changed` to the offsets of the lines
/// that do not hold, in order (to be freed). Returns how many, or -1 (and no offsets) when a
/// line is damaged or memory ran out. `bytes` is a file's mapping (it starts a page): the pages
/// walked past are given back to the system as the walk goes (`MADV_DONTNEED`).
int64_t vs_files_check_lines(const vs_files *files, const unsigned char *bytes, size_t start, size_t end,
                             uint8_t *seen, int64_t **changed);

/// The stamps of the files at `positions[0..<n]` into `out[0..<n]`.
void vs_files_stamp_some(const vs_files *files, const int32_t *positions, int32_t n, vs_stamp *out);

// MARK: - The watcher (watch.c)

/// A watcher's answer: its epoch and generation now, and either `everything` (it cannot name
/// what changed since the generation asked about) or the `count` paths that changed since, as
/// NUL-ended strings one after the other in `paths` (`bytes` in all).
typedef struct vs_watch_answer {
    int32_t everything, count;
    uint64_t epoch, generation;
    uint32_t bytes;
    char *paths;
} vs_watch_answer;

/// Whether the vault at `root` (and its `rooms`, `diary`, `volumes`) is on a local file system (ext4, xfs,
/// btrfs, tmpfs, f2fs, overlayfs, zfs): inotify sees every change there, and a read of a
/// regular file comes back short only at its end.
int vs_local_file_system(const char *root);

/// Runs the watcher of the vault at `root` until it has had no question for `idle_ms`, the root
/// is gone, or a signal ends it: takes `lock_path` (or returns 0 at once when another watcher
/// holds it), watches the folders, listens on `socket_path`, then writes one byte to `ready_fd`
/// (-1: none) and closes it. Keeps at most `max_paths` changed paths (more: "everything").
/// Returns 0, or 2 when it could not watch or listen.
int vs_watch_run(const char *root, const char *socket_path, const char *lock_path, int ready_fd, int64_t idle_ms,
                 int32_t max_paths);

/// Asks the watcher at `socket_path` what changed since (`epoch`, `generation`). 0: answered
/// (free with `vs_watch_answer_free`); -1: no watcher answers there (none, a dead one's socket,
/// or it ended while asked); -2: it cannot be asked (the path is too long for a socket).
int vs_watch_ask(const char *socket_path, uint64_t epoch, uint64_t generation, vs_watch_answer *answer);
void vs_watch_answer_free(vs_watch_answer *answer);

/// Starts `argv` (a watcher's command line; `argv[0]` a path) in its own session, standard
/// streams on /dev/null and descriptor 3 the write end of a pipe whose read end goes to
/// `*ready_fd`. Returns the process id, or -1.
int vs_watch_spawn(char *const argv[], int *ready_fd);

/// Waits up to `timeout_ms` for the ready byte on `ready_fd` (then closes it): 1 when it came,
/// 0 when the watcher ended without it (another one holds the vault) or the time ran out.
int vs_watch_wait_ready(int ready_fd, int timeout_ms);


/// The first offset `at` in `i..<n` where `p[at]` may start a code point `TextScan.survey` must
/// look at: a lead byte `C3`–`E3` or `EF`–`FF`, or `EA` not followed by `B0`–`BF` (Hangul
/// syllables); `n` when there is none. 32 bytes at a time with AVX2 when the processor has it,
/// else 16 (SSE2), else one by one.
size_t vs_next_survey_lead(const unsigned char *p, size_t i, size_t n);

/// The offset of the last `byte` in `p[0..<n]`, or `n` when there is none (glibc's `memrchr`,
/// which Swift's Glibc module does not declare).
size_t vs_last_byte(const unsigned char *p, unsigned char byte, size_t n);

/// A needle to find (find.c): its bytes (a copy), and the two positions of it whose bytes are
/// compared first, 32 places at a time, before the whole needle is: the rarest two, by how
/// common a byte is in Korean and English text.
typedef struct {
    const unsigned char *needle;
    size_t m;
    size_t i1, i2;
    /// ASCII letters match in either case (`needle` is lower-case).
    int fold;
} vs_finder;

/// A finder for `needle[0..<m]`, or NULL when memory ran out; `vs_finder_free` frees it.
vs_finder *vs_finder_make(const unsigned char *needle, size_t m, int ignore_ascii_case);
void vs_finder_free(vs_finder *f);

/// The offset of the first occurrence of the finder's needle in `p[i..<n]` (starting at `i` or
/// later), or `n` when there is none. AVX2 when the processor has it, else SSE2, else one by one.
size_t vs_find(const vs_finder *f, const unsigned char *p, size_t i, size_t n);

/// How many of `p[0..<n]` are `byte` (line feeds before a hit: its line number). 64 bytes at a
/// time with AVX2, else 16.
size_t vs_count_byte(const unsigned char *p, size_t n, unsigned char byte);

/// Whether `p[0..<n]` is valid UTF-8 (what Swift's `String(validating:)` accepts): 1 or 0.
/// 32 bytes at a time with AVX2 when the processor has it (utf8.c).
int vs_utf8_valid(const unsigned char *p, size_t n);

/// The first position from `i` of a byte a listing cannot print as it is: below 0x20, 0x7F, a
/// backslash, or 0xC2 (the lead byte of U+0080–U+009F, and of other characters); `n` when none.
size_t vs_next_unplain(const unsigned char *p, size_t i, size_t n);

/// The CRC-32C (Castagnoli) of `p[0..<n]`, continuing from `crc` (0 to start): the listing
/// cache's checksum.
uint32_t vs_crc32c(uint32_t crc, const unsigned char *p, size_t n);

/// A search key's index terms (grams.c): `count` words, each followed by a space, in
/// `text[0..<length]` (malloc'ed; `vs_terms_free` frees it): six characters `[0-9a-v]` for a
/// trigram, `w` and six for a pair of CJK code points, `x` and five for one CJK code point, `y`
/// and six for a trigram as written that holds a capital (`vs_case_terms`).
typedef struct {
    char *text;
    size_t length;
    size_t count;
} vs_terms;

/// The terms of the UTF-8 text `p[0..<n]`, in the order first met. A text's (`of_query` 0): one
/// per distinct run of three consecutive code points (a 30-bit hash of the three, so two runs
/// may share a term), one per distinct pair of consecutive CJK code points (Hangul, kana, Han;
/// hashed alike) and one per distinct CJK code point. A query's (`of_query` 1): its trigrams when
/// it has three code points or more; else its pair when both are CJK, else its CJK code points;
/// none for one or two code points that are not CJK. Every term of a query is a term of every
/// text that contains it. Returns 0, or -1 when memory ran out.
int vs_index_terms(const unsigned char *p, size_t n, int of_query, vs_terms *out);
/// The case-kept terms of the UTF-8 text `p[0..<n]` (NFC, not case folded), a text's and a
/// query's alike: `y` and six `[0-9a-v]` for each distinct run of three consecutive code points
/// that holds a capital letter A–Z (hashed as a trigram). A text that contains a query as written
/// has every one of the query's. Returns 0, or -1 when memory ran out.
int vs_case_terms(const unsigned char *p, size_t n, vs_terms *out);
void vs_terms_free(vs_terms *terms);

#endif
