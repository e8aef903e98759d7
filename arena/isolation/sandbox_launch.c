/* The sandbox launcher: starts one bot inside fresh Linux namespaces, in a root of its own.
 *
 * Built and run by arena/sandbox.py, once per bot start:
 *
 *   sandbox-launch --status-fd=N --parent=PID --cwd=DIR --base=DIR [--uid=N] [--userns]
 *                  [--limit=KEY=N]... [--workdir-mb=N] [--files=DIR | --workdir-disk]
 *                  [--ro=PATH]... [--cgroup=DIR]... -- ARGV...
 *
 * It is C, not Python, because it runs at every bot start: a Python launcher spent ~30 ms of CPU
 * per bot (interpreter, ctypes, json), as much as a short match between two C bots; this one
 * spends ~1 ms. Linux only; needs nothing but libc.
 *
 * It runs as two processes, because a new PID namespace only applies to the children of the
 * process that creates it:
 *
 * - the *outer* process (the one the referee started, in its own session) unshares the network,
 *   mount, PID, IPC, UTS and cgroup namespaces (and a user namespace with --userns, when not
 *   root), forks the inner process and exits with it;
 * - the *inner* process is PID 1 of the new PID namespace. It builds the bot's root from an
 *   ALLOW-LIST and nothing else: an empty tmpfs, into which each --ro path (system folders, the
 *   interpreter, the arena's installation, the bot's own program folder: arena/sandbox.py decides
 *   the list, never from what a bot asks) is bind-mounted read-only at its own path; a minimal
 *   /dev (null, zero, full, random, urandom); a fresh /proc of the PID namespace; and one tmpfs of
 *   --workdir-mb for the bot's working folder /bot, /tmp and /dev/shm. Then pivot_root into it and
 *   detach the old root: every other path of the machine (the arena's data, records, /run's
 *   sockets, the caller's home) does not exist for the bot, and /proc/self/mountinfo names none
 *   of it. It forks the bot, applies the resource limits, drops every capability and (as root)
 *   changes to the bot's user id, and execs it. Then it reaps, and when the bot exits it reports
 *   on the status pipe (one JSON object per line): the exit status, CPU time, peak memory and how
 *   many processes the bot left running. When PID 1 of a namespace exits, the kernel kills every
 *   process still in it: nothing a bot starts, not even a setsid daemon, outlives it.
 *
 * The bot can read /proc/1/cmdline (PID 1 is this launcher): the arguments are copied to the heap
 * and wiped from the argument area before anything else, so they name no path of the machine (an
 * option added later is covered too: parse() only ever sees the copy).
 *
 * With --cgroup (one per hierarchy: v1 has one for memory, one for pids, one for cpu), the outer
 * process joins the bot's cgroups first of all, before it forks: the bot and everything it starts
 * are in them from their first instruction (arena/cgroups.py made them and set their caps). The
 * new namespaces include a cgroup namespace rooted there, so the bot sees no cgroup path.
 *
 * Both processes ask the kernel to kill them when their parent dies (PR_SET_PDEATHSIG), so a
 * referee killed with kill -9 takes its bots with it.
 *
 * Built with -DSANDBOX_LIBRARY -shared, the same code is a library for arena/zygote.py (issue 18):
 * sandbox_enter(argc, argv) takes the same arguments, in a process the zygote has just forked
 * (whose descriptors 0-2 are the bot's pipes). It builds exactly the same sandbox, and where the
 * program would exec the bot it returns 0 instead, in the bot's process: the zygote's child then
 * runs the (pre-imported) Python bot there. The outer process and PID 1 never return. One
 * implementation of the sandbox, two ways in.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_PATHS 128
#define MAX_CGROUPS 4
/* After the bot exits, processes it started get this long to exit too before they count as left
 * behind (and are killed with the namespace). */
#define STRAGGLER_GRACE_MS 100
/* The bot's working folder inside its root (arena/sandbox.py: BOT_HOME). */
#define BOT_HOME "/bot"

/* The devices a program may expect; nothing that reaches hardware or the host's terminals. */
static const char *const DEVICES[] = {"null", "zero", "full", "random", "urandom"};

struct limit { const char *key; int resource; rlim_t scale; long value; };

static struct limit LIMITS[] = {
    {"cpu_s", RLIMIT_CPU, 1, 0},
    {"memory_mb", RLIMIT_AS, 1 << 20, 0},
    {"processes", RLIMIT_NPROC, 1, 0},
    {"file_mb", RLIMIT_FSIZE, 1 << 20, 0},
    {"open_files", RLIMIT_NOFILE, 1, 0},
};
#define N_LIMITS (sizeof LIMITS / sizeof LIMITS[0])

static struct {
    int status_fd;
    long parent;
    const char *cwd, *base, *files;
    long uid;                       /* -1: keep the caller's */
    int userns, workdir_disk;
    long workdir_mb;                /* 0: the tmpfs default (half the memory) */
    const char *ro[MAX_PATHS];
    int n_ro;
    const char *cgroup[MAX_CGROUPS];
    int n_cgroup;
    char **argv;
    int in_process;                 /* the library: return in the bot's process, do not exec */
    char *wipe;                     /* the library: the arguments' buffer, wiped in the bot */
    size_t wipe_size;
} spec = {.status_fd = -1, .parent = -1, .uid = -1};
static void show_arguments(char **argv);

/* -- reporting ---------------------------------------------------------------------------------- */

static void write_all(int fd, const char *text, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;         /* the referee is gone; nobody is left to tell */
        text += n;
        len -= (size_t)n;
    }
}

/* {"error": "<what>: <strerror>"} on the status pipe; the text is JSON-escaped. */
static void report_error(const char *fmt, ...) {
    char text[1024], line[2 * sizeof text + 32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t n = (size_t)snprintf(line, sizeof line, "{\"error\": \"");
    for (const unsigned char *c = (const unsigned char *)text; *c && n < sizeof line - 16; c++) {
        if (*c == '"' || *c == '\\') { line[n++] = '\\'; line[n++] = (char)*c; }
        else if (*c < 0x20) n += (size_t)snprintf(line + n, 8, "\\u%04x", *c);
        else line[n++] = (char)*c;
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "\"}\n");
    write_all(spec.status_fd, line, n);
}

static void report_fmt(const char *fmt, ...) {
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) write_all(spec.status_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line);
}

/* A failed system call ends the launcher with status 126 and a report naming what failed. */
static void fail(const char *what) {
    report_error("sandbox: %s: %s", what, strerror(errno));
    _exit(126);
}

static void check(int result, const char *what) {
    if (result != 0) fail(what);
}

/* -- the bot's root ---------------------------------------------------------------------------- */

/* mkdir -p. The folder itself first: most targets' parents exist already (the allow-list comes
 * outermost first), and a mkdir of each parent that exists is a path walk and a lock for nothing
 * (issue 18: ~40 such calls per start). */
static void make_dirs(const char *path, mode_t mode) {
    if (mkdir(path, mode) == 0 || errno != ENOENT) return;
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') { *p = 0; mkdir(buf, mode); *p = '/'; }
    }
    mkdir(buf, mode);
}

static void joined(char *out, const char *root, const char *path) {
    if (snprintf(out, PATH_MAX, "%s%s", root, path) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        fail(path);
    }
}

/* A mount point at target of the same kind as source: a folder, or an empty file. */
static void make_target(const char *source, const char *target) {
    struct stat st;
    if (stat(source, &st) != 0) fail(source);
    if (S_ISDIR(st.st_mode)) {
        make_dirs(target, 0755);
        return;
    }
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", target);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) { *slash = 0; make_dirs(parent, 0755); }
    int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail(target);
    close(fd);
}

/* The flags a read-only remount must keep: in a user namespace the kernel refuses to clear
 * nosuid, nodev, noexec or the atime flags of a mount that came from outside it. */
static unsigned long kept_flags(const char *path) {
    struct statvfs sv;
    unsigned long flags = 0;
    if (statvfs(path, &sv) != 0) return 0;
    if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    return flags;
}

/* source, read-only, at the same path under root; a symbolic link (/bin -> usr/bin) is made
 * again as a link, so that what it points to is the allow-list's business. */
static void bind_read_only(const char *root, const char *source) {
    char target[PATH_MAX], what[PATH_MAX + 16], link[PATH_MAX];
    struct stat st;
    joined(target, root, source);
    if (lstat(source, &st) != 0) return;  /* the list names what may exist (/lib32) */
    if (S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(source, link, sizeof link - 1);
        if (n < 0) fail(source);
        link[n] = 0;
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", target);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) { *slash = 0; make_dirs(parent, 0755); }
        if (symlink(link, target) != 0 && errno != EEXIST) fail(target);
        return;
    }
    make_target(source, target);
    snprintf(what, sizeof what, "mount %s", source);
    check(mount(source, target, NULL, MS_BIND, NULL), what);
    check(mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV |
                kept_flags(target), NULL), what);
}

/* A copy of the bot's files into its working folder (a tmpfs, so the copy counts against
 * workdir_mb), owned by the bot's user. Regular files, folders and symbolic links; no set-id
 * bits. */
static void copy_tree(const char *from, const char *to) {
    DIR *dir = opendir(from);
    if (dir == NULL) fail(from);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char src[PATH_MAX], dst[PATH_MAX];
        struct stat st;
        if (snprintf(src, sizeof src, "%s/%s", from, e->d_name) >= (int)sizeof src ||
            snprintf(dst, sizeof dst, "%s/%s", to, e->d_name) >= (int)sizeof dst) {
            errno = ENAMETOOLONG;
            fail(from);
        }
        if (lstat(src, &st) != 0) fail(src);
        mode_t mode = st.st_mode & 0777;
        if (S_ISDIR(st.st_mode)) {
            if (mkdir(dst, mode | 0700) != 0) fail(dst);
            copy_tree(src, dst);
        } else if (S_ISLNK(st.st_mode)) {
            char link[PATH_MAX];
            ssize_t n = readlink(src, link, sizeof link - 1);
            if (n < 0) fail(src);
            link[n] = 0;
            if (symlink(link, dst) != 0) fail(dst);
        } else if (S_ISREG(st.st_mode)) {
            int in = open(src, O_RDONLY | O_CLOEXEC);
            int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode | 0600);
            if (in < 0) fail(src);
            if (out < 0) fail(dst);
            char buf[65536];
            ssize_t n;
            while ((n = read(in, buf, sizeof buf)) > 0) {
                for (ssize_t done = 0; done < n;) {
                    ssize_t w = write(out, buf + done, (size_t)(n - done));
                    if (w < 0) fail("copying the bot's files into its working folder "
                                    "(workdir_mb too small?)");
                    done += w;
                }
            }
            if (n < 0) fail(src);
            close(in);
            close(out);
        } else {
            continue;  /* sockets, fifos, devices: not part of a bot */
        }
        if (spec.uid >= 0 && lchown(dst, (uid_t)spec.uid, (gid_t)spec.uid) != 0) fail(dst);
    }
    closedir(dir);
}

static void write_text(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail(path);
    size_t len = strlen(text);
    if (write(fd, text, len) != (ssize_t)len) fail(path);
    close(fd);
}

/* The bot's /etc/passwd, group, hosts and nsswitch.conf, written here rather than bound from the
 * machine's (issue 29: they listed the host's users): root, the bot's own user (its leased id; in
 * a user namespace it is root there) and nobody; localhost. */
static void write_etc(const char *root) {
    char etc[PATH_MAX], path[PATH_MAX + 32], text[1024], own[256] = "", own_group[128] = "";
    joined(etc, root, "/etc");
    make_dirs(etc, 0755);
    if (spec.uid > 0) {
        snprintf(own, sizeof own, "bot:x:%ld:%ld:bot:" BOT_HOME ":/bin/sh\n", spec.uid, spec.uid);
        snprintf(own_group, sizeof own_group, "bot:x:%ld:\n", spec.uid);
    }
    snprintf(text, sizeof text, "root:x:0:0:root:/root:/bin/sh\n%s"
             "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n", own);
    snprintf(path, sizeof path, "%s/passwd", etc);
    write_text(path, text);
    snprintf(text, sizeof text, "root:x:0:\n%snogroup:x:65534:\n", own_group);
    snprintf(path, sizeof path, "%s/group", etc);
    write_text(path, text);
    snprintf(path, sizeof path, "%s/hosts", etc);
    write_text(path, "127.0.0.1\tlocalhost\n::1\tlocalhost\n");
    snprintf(path, sizeof path, "%s/nsswitch.conf", etc);
    write_text(path, "passwd: files\ngroup: files\nhosts: files\n");
}

/* The bot's root, built in base/root, then made the root of this mount namespace; the old root is
 * detached, so no path leads back to it. */
static void build_root(void) {
    char root[PATH_MAX], scratch[PATH_MAX], path[PATH_MAX + 64], what[PATH_MAX + 16];
    joined(root, spec.base, "/root");
    joined(scratch, spec.base, "/scratch");
    mkdir(root, 0700);
    mkdir(scratch, 0700);
    check(mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m"), "mount root");

    /* One tmpfs holds everything the bot may write: its folder, /tmp and /dev/shm. Once the
     * bot's own files are in, its size becomes what they use plus workdir_mb: the cap. Writing
     * past it fails with ENOSPC inside the bot. */
    check(mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"), "mount scratch");
    char work[PATH_MAX], tmp[PATH_MAX], shm[PATH_MAX];
    joined(work, scratch, "/work");
    joined(tmp, scratch, "/tmp");
    joined(shm, scratch, "/shm");
    check(mkdir(work, 0700), "mkdir work");
    check(mkdir(tmp, 0700) || chmod(tmp, 01777), "mkdir tmp");  /* chmod: the umask applies */
    check(mkdir(shm, 0700) || chmod(shm, 01777), "mkdir shm");
    if (spec.uid >= 0) check(chown(work, (uid_t)spec.uid, (gid_t)spec.uid), "chown work");
    if (spec.files) copy_tree(spec.files, work);
    if (spec.workdir_mb > 0) {
        struct statvfs sv;
        check(statvfs(scratch, &sv), "statvfs scratch");
        unsigned long long used_kb = (unsigned long long)(sv.f_blocks - sv.f_bfree) * sv.f_frsize / 1024;
        char options[64];
        snprintf(options, sizeof options, "mode=0755,size=%lluk",
                 used_kb + (unsigned long long)spec.workdir_mb * 1024);
        check(mount(NULL, scratch, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, options),
              "cap the scratch tmpfs");
    }

    /* the bot's folder: the tmpfs, or (a build, whose output is kept) its folder on disk */
    joined(path, root, BOT_HOME);
    make_dirs(path, 0755);
    if (spec.workdir_disk) {
        char disk[PATH_MAX];
        joined(disk, spec.base, "/work");
        check(mount(disk, path, NULL, MS_BIND, NULL), "mount the bot's folder");
    } else {
        check(mount(work, path, NULL, MS_BIND, NULL), "mount the bot's folder");
    }
    joined(path, root, "/tmp");
    make_dirs(path, 0755);
    check(mount(tmp, path, NULL, MS_BIND, NULL), "mount /tmp");

    /* /dev: a few devices bound from the host's, and the usual links */
    joined(path, root, "/dev");
    make_dirs(path, 0755);
    check(mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k"), "mount /dev");
    for (size_t i = 0; i < sizeof DEVICES / sizeof DEVICES[0]; i++) {
        char host[64], target[PATH_MAX + 64];
        snprintf(host, sizeof host, "/dev/%s", DEVICES[i]);
        snprintf(target, sizeof target, "%s/dev/%s", root, DEVICES[i]);
        int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) fail(target);
        close(fd);
        snprintf(what, sizeof what, "mount %s", host);
        check(mount(host, target, NULL, MS_BIND, NULL), what);
    }
    static const char *const LINKS[][2] = {{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
                                           {"/proc/self/fd/1", "stdout"},
                                           {"/proc/self/fd/2", "stderr"}};
    for (size_t i = 0; i < sizeof LINKS / sizeof LINKS[0]; i++) {
        snprintf(path, sizeof path, "%s/dev/%s", root, LINKS[i][1]);
        check(symlink(LINKS[i][0], path), "symlink in /dev");
    }
    snprintf(path, sizeof path, "%s/dev/shm", root);
    make_dirs(path, 0755);
    check(mount(shm, path, NULL, MS_BIND, NULL), "mount /dev/shm");

    /* The allow-list, after /tmp: a bot's program may live under the host's /tmp; after /etc's
     * own files, which a command naming one of the machine's then covers. */
    write_etc(root);
    for (int i = 0; i < spec.n_ro; i++) bind_read_only(root, spec.ro[i]);

    /* a fresh /proc: the processes of this PID namespace only */
    joined(path, root, "/proc");
    make_dirs(path, 0755);
    check(mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL), "mount /proc");

    /* Into the new root; the old one is detached, the scratch tmpfs lives on in the binds. */
    check(chdir(root), "chdir root");
    check((int)syscall(SYS_pivot_root, ".", "."), "pivot_root");
    check(umount2(".", MNT_DETACH), "detach the old root");
    check(chdir("/"), "chdir /");
    check(mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL),
          "remount / read-only");
    check(mount(NULL, "/dev", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
                NULL), "remount /dev read-only");
}

/* -- the bot ------------------------------------------------------------------------------------ */

static void apply_limits(void) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);  /* a crashing bot writes no core file */
    for (size_t i = 0; i < N_LIMITS; i++) {
        if (LIMITS[i].value <= 0) continue;
        /* CPU: SIGXCPU at the soft limit, SIGKILL one second later for a bot that catches it. */
        rlim_t soft = (rlim_t)LIMITS[i].value * LIMITS[i].scale;
        rlim_t hard = LIMITS[i].resource == RLIMIT_CPU ? soft + 1 : soft;
        struct rlimit rl = {soft, hard};
        check(setrlimit(LIMITS[i].resource, &rl), LIMITS[i].key);
    }
}

/* Processes in this PID namespace besides PID 1 (the fresh /proc shows only ours). */
static int count_others(void) {
    DIR *dir = opendir("/proc");
    if (dir == NULL) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        const char *c = e->d_name;
        if (!*c || strcmp(c, "1") == 0) continue;
        while (*c >= '0' && *c <= '9') c++;
        n += *c == 0;
    }
    closedir(dir);
    return n;
}

static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* No capability survives into the bot: in the bounding set, none can come back at exec, not even
 * for root (which the bot is, within its user namespace, in the namespaces mode: with them it
 * could unmount or remount its read-only view of the machine). */
static void drop_capabilities(void) {
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) fail("drop capabilities");
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        fail("clear ambient capabilities");
}

static void clear_capabilities(void) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    check((int)syscall(SYS_capset, &header, data), "capset");
}

static void start_bot(void) {
    /* The referee may have ignored these, and ignored signals survive exec: a bot gets the
     * defaults back, so a file too large kills it with SIGXFSZ. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    apply_limits();
    drop_capabilities();
    if (spec.uid >= 0) {
        check(setgroups(0, NULL), "setgroups");
        check(setgid((gid_t)spec.uid), "setgid");
        check(setuid((uid_t)spec.uid), "setuid");
    }
    clear_capabilities();
    check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl");  /* setuid programs gain nothing */
    check(chdir(spec.cwd), "chdir");
    if (spec.in_process) {
        /* No exec to close it: the bot must not hold the status pipe (it could forge a report). */
        close(spec.status_fd);
        /* As an exec'ed bot is: its own process may be traced by itself, not by anyone else of
         * its uid (it has none), and not the root-owned PID 1 (whose mm is not the bot's). */
        check(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "prctl");
        show_arguments(spec.argv);
        memset(spec.wipe, 0, spec.wipe_size);  /* the bot's argv is in there too: used above */
        return;
    }
    execvp(spec.argv[0], spec.argv);
    report_error("cannot start '%s': %s", spec.argv[0], strerror(errno));
    _exit(127);
}

/* Returns only in the bot's process, and only in the library (spec.in_process). */
static void inner(int lifeline) {
    check(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "prctl");
    /* Our parent is outside this PID namespace, so getppid() says 0 whether it lives or not; the
     * lifeline (a pipe whose writing end only the outer process holds; in the library, a pidfd of
     * the outer process) is readable once it died. */
    struct pollfd p = {lifeline, POLLIN, 0};
    if (poll(&p, 1, 0) > 0) _exit(1);  /* it died before we could ask to die with it */
    close(lifeline);
    if (spec.in_process) {
        /* The outer process sleeps until we exit (vfork), so it cannot say our PID: we do. The
         * host's /proc is still mounted here, where /proc/self names our PID outside. */
        char self[32];
        ssize_t n = readlink("/proc/self", self, sizeof self - 1);
        if (n <= 0) fail("readlink /proc/self");
        self[n] = 0;
        report_fmt("{\"inner\": %s}\n", self);
    }
    check(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), "mount /");  /* nothing propagates */
    /* The bot (another uid, or without capabilities) may not read PID 1's memory, maps or root. */
    check(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl");
    build_root();
    pid_t bot = fork();
    if (bot < 0) fail("fork");
    if (bot == 0) {
        start_bot();
        return;  /* the library: the bot runs in this process */
    }
    for (int fd = 0; fd <= 2; fd++) close(fd);  /* the pipes are the bot's: EOF when it exits */
    int status = 0, have_usage = 0;
    struct rusage usage;
    for (;;) {
        int st;
        struct rusage ru;
        pid_t pid = wait4(-1, &st, 0, &ru);
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) break;
        if (pid == bot) { status = st; usage = ru; have_usage = 1; break; }
    }
    long deadline = now_ms() + STRAGGLER_GRACE_MS;
    int left = count_others();
    while (left && now_ms() < deadline) {
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        usleep(10000);
        left = count_others();
    }
    int code = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
    if (have_usage) {
        double cpu = (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
        report_fmt("{\"status\": %d, \"left\": %d, \"cpu_s\": %.3f, \"max_rss_mb\": %.1f}\n",
                   code, left, cpu, (double)usage.ru_maxrss / 1024.0);
    } else {
        report_fmt("{\"status\": %d, \"left\": %d}\n", code, left);
    }
    _exit(0);  /* PID 1 exits: the kernel kills whatever the bot left behind */
}

/* -- the outer process -------------------------------------------------------------------------- */

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) fail(path);
    close(fd);
}

/* Move this process into each --cgroup: what it forks from now on is counted there. A cgroup that
 * cannot be joined ends the launcher (status 126): the bot never runs without its caps. */
static void join_cgroups(void) {
    char path[PATH_MAX], pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    for (int i = 0; i < spec.n_cgroup; i++) {
        snprintf(path, sizeof path, "%s/cgroup.procs", spec.cgroup[i]);
        write_file(path, pid);
    }
}

static long number(const char *text, const char *option) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end) {
        fprintf(stderr, "sandbox-launch: %s needs a number, not '%s'\n", option, text);
        exit(2);
    }
    return value;
}

static void parse(int argc, char **argv) {
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        char *arg = argv[i], *value = strchr(arg, '=');
        if (value) value++;
#define OPTION(name) (strncmp(arg, name "=", sizeof name) == 0)
        if (OPTION("--status-fd")) spec.status_fd = (int)number(value, "--status-fd");
        else if (OPTION("--parent")) spec.parent = number(value, "--parent");
        else if (OPTION("--cwd")) spec.cwd = value;
        else if (OPTION("--base")) spec.base = value;
        else if (OPTION("--uid")) spec.uid = number(value, "--uid");
        else if (strcmp(arg, "--userns") == 0) spec.userns = 1;
        else if (OPTION("--files")) spec.files = value;
        else if (strcmp(arg, "--workdir-disk") == 0) spec.workdir_disk = 1;
        else if (OPTION("--workdir-mb")) spec.workdir_mb = number(value, "--workdir-mb");
        else if (OPTION("--ro") && spec.n_ro < MAX_PATHS) spec.ro[spec.n_ro++] = value;
        else if (OPTION("--cgroup") && spec.n_cgroup < MAX_CGROUPS)
            spec.cgroup[spec.n_cgroup++] = value;
        else if (OPTION("--limit")) {
            char *eq = strchr(value, '=');
            size_t k = 0;
            while (k < N_LIMITS && !(eq && strncmp(LIMITS[k].key, value, (size_t)(eq - value)) == 0
                                     && LIMITS[k].key[eq - value] == 0)) k++;
            if (k == N_LIMITS) {
                fprintf(stderr, "sandbox-launch: unknown limit '%s'\n", value);
                exit(2);
            }
            LIMITS[k].value = number(eq + 1, LIMITS[k].key);
        } else {
            fprintf(stderr, "sandbox-launch: unknown or repeated too often: '%s'\n", arg);
            exit(2);
        }
#undef OPTION
    }
    if (i + 1 >= argc || spec.status_fd < 0 || spec.parent < 0 || !spec.cwd || !spec.base) {
        fprintf(stderr, "usage: sandbox-launch --status-fd=N --parent=PID --cwd=DIR --base=DIR "
                        "[--uid=N] [--userns] [--limit=KEY=N]... [--workdir-mb=N] "
                        "[--files=DIR | --workdir-disk] [--ro=PATH]... [--cgroup=DIR]... -- ARGV...\n");
        exit(2);
    }
    spec.argv = argv + i + 1;
}

#ifndef SANDBOX_LIBRARY
/* The arguments, copied to the heap for parse() (every option and the bot's argv point there);
 * then the argument area is wiped, since the bot can read it as /proc/1/cmdline and it names
 * paths of the machine. */
static char **forget_arguments(int argc, char **argv) {
    char **copy = calloc((size_t)argc + 1, sizeof *copy);
    if (copy == NULL) exit(1);
    for (int i = 0; i < argc; i++) {
        copy[i] = strdup(argv[i]);
        if (copy[i] == NULL) exit(1);
    }
    char *end = argv[argc - 1] + strlen(argv[argc - 1]);
    memset(argv[0], 0, (size_t)(end - argv[0]));
    snprintf(argv[0], (size_t)(end - argv[0]) + 1, "sandbox");
    return copy;
}

#endif

/* The library's stand-in for forget_arguments(): this process's arguments area (the zygote's,
 * found in /proc/self/stat) is overwritten with "sandbox", or with the bot's command (NUL-separated,
 * cut to fit) for `ps` and the session checks of the tests, as if it had been exec'ed. */
static void show_arguments(char **argv) {
    if (!spec.in_process) return;
    char stat[4096];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) return;
    stat[n] = 0;
    char *p = strrchr(stat, ')');
    if (p == NULL) return;
    /* after the command's ")": field 3 is the state; arg_start and arg_end are fields 48 and 49 */
    unsigned long start = 0, end = 0;
    int field = 2;
    for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
        field++;
        if (field == 48) start = strtoul(tok, NULL, 10);
        else if (field == 49) { end = strtoul(tok, NULL, 10); break; }
    }
    if (start == 0 || end <= start) return;
    char *area = (char *)start;
    size_t size = end - start;
    memset(area, 0, size);
    if (argv == NULL) {
        snprintf(area, size, "sandbox");
        return;
    }
    size_t at = 0;
    for (char **a = argv; *a && at + 1 < size; a++) {
        size_t len = strlen(*a);
        if (at + len + 1 > size - 1) len = size - 1 - at - 1;
        memcpy(area + at, *a, len);
        at += len + 1;
    }
}

#ifdef SANDBOX_LIBRARY
/* In the library the outer process is a fork of the zygote, a Python interpreter: copying its
 * page tables at every fork was most of a start's CPU (issue 18: perf showed copy_page_range on
 * top). So PID 1 is not a copy: it is cloned into the outer process's memory (CLONE_VM, on a
 * stack of its own) and the outer process sleeps until it exits (CLONE_VFORK); it also shares
 * the outer's descriptor table (CLONE_FILES), so the bot's pipes close for both when PID 1 closes
 * them. Only the bot is a copy. The bot then jumps back (siglongjmp) into sandbox_enter's caller,
 * on the outer process's stack, which is intact in its copy of the memory: the outer process was
 * asleep in clone() below that frame. */
#define INNER_STACK_BYTES (1 << 20)
static sigjmp_buf back_to_python;
static char *inner_stack;

static int inner_entry(void *lifeline) {
    inner((int)(long)lifeline);
    siglongjmp(back_to_python, 1);  /* in the bot's process only: inner() returns there alone */
}

static void spawn_inner_sharing_memory(void) {
    int lifeline = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (lifeline < 0) fail("pidfd_open");
    inner_stack = mmap(NULL, INNER_STACK_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (inner_stack == MAP_FAILED) fail("mmap the stack of PID 1");
    char *stack = inner_stack;
    if (sigsetjmp(back_to_python, 0)) {
        /* The bot, back on this stack: PID 1's stack holds the paths it built the root from (the
         * bot's folder on the host): gone from the bot's memory. */
        munmap(inner_stack, INNER_STACK_BYTES);
        return;
    }
    pid_t child = clone(inner_entry, stack + INNER_STACK_BYTES,
                        CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, (void *)(long)lifeline);
    if (child < 0) fail("clone");
    /* PID 1 has exited (or PID 1 failed before it could start the bot). */
    for (int fd = 0; fd <= 2; fd++) close(fd);
    close(spec.status_fd);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 126);
}
#endif

/* The outer process, then (by fork) PID 1 and the bot. Returns only in the bot's process, and
 * only in the library. */
static void launch(void) {
    /* the bot must not inherit the status pipe (closed at its exec) */
    fcntl(spec.status_fd, F_SETFD, FD_CLOEXEC);
    check(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "prctl");
    if (getppid() != (pid_t)spec.parent) _exit(1);  /* the referee died before we could ask */
    join_cgroups();
    /* A cgroup namespace made after the join: the bot's /proc/self/cgroup shows "/", not the
     * arena's cgroup on the host, nor the referee's PID and count in its cgroups' names. */
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET |
                CLONE_NEWCGROUP;
    if (spec.userns) {
        char map[64];
        uid_t uid = getuid();
        gid_t gid = getgid();
        check(unshare(CLONE_NEWUSER | flags), "unshare");
        write_file("/proc/self/setgroups", "deny");
        snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
        write_file("/proc/self/uid_map", map);
        snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
        write_file("/proc/self/gid_map", map);
    } else {
        check(unshare(flags), "unshare");
    }
#ifdef SANDBOX_LIBRARY
    spawn_inner_sharing_memory();
    return;  /* the bot, back from PID 1 by siglongjmp */
#endif
    int life[2];
    check(pipe2(life, O_CLOEXEC), "pipe");
    pid_t child = fork();
    if (child < 0) fail("fork");
    if (child == 0) {
        close(life[1]);
        inner(life[0]);
        return;  /* the library, in the bot's process */
    }
    /* The referee waits for PID 1 to be gone: only then has the kernel ended the namespace. */
    report_fmt("{\"inner\": %d}\n", (int)child);
    for (int fd = 0; fd <= 2; fd++) close(fd);
    close(spec.status_fd);
    close(life[0]);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 126);
}

#ifdef SANDBOX_LIBRARY
/* The zygote's way in (arena/zygote.py): the launcher's arguments, in a freshly forked process.
 * Returns 0 in the bot's process, inside its sandbox, as its user, with its limits; every other
 * process of the launch ends in here. The arguments area (/proc/PID/cmdline, which the bot can
 * read as /proc/1/cmdline) is the zygote's: it is wiped too, then shows the bot's command. */
int sandbox_enter(char *args, size_t size) {
    /* args: the launcher's arguments, each ending in a NUL, read by the zygote's child straight
     * into this buffer (never a Python string). They name the bot's folder on the host, its
     * cgroups and uid: the bot's process wipes them before it returns (start_bot), as the exec'ed
     * launcher wipes its own. */
    int argc = 1;
    for (size_t i = 0; i < size; i++) argc += args[i] == 0;
    char **argv = calloc((size_t)argc + 1, sizeof *argv);
    if (argv == NULL || size == 0 || args[size - 1] != 0) return -1;
    argv[0] = "sandbox-launch";
    int n = 1;
    for (size_t i = 0; i < size; i += strlen(args + i) + 1) argv[n++] = args + i;
    spec.in_process = 1;
    spec.wipe = args;
    spec.wipe_size = size;
    parse(argc, argv);
    show_arguments(NULL);
    launch();
    free(argv);
    return 0;
}

/* The bot's own request (its kind and command, NUL-separated), read by sandbox_enter_from() for
 * the bot's process: not secret, the bot is told its own command anyway. */
static char *bot_request;
static size_t bot_request_size;

static int read_full(int fd, char *buf, size_t size) {
    for (size_t done = 0; done < size;) {
        ssize_t n = read(fd, buf + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        done += (size_t)n;
    }
    return 0;
}

/* A size as the zygote's referee sends it: 16 hexadecimal digits; 0 if malformed. */
static size_t read_size(int fd) {
    char head[17] = {0};
    if (read_full(fd, head, 16) != 0) return 0;
    char *end;
    unsigned long long size = strtoull(head, &end, 16);
    if (*end || size > (1 << 24)) return 0;
    return (size_t)size;
}

/* The zygote's child calls this right after the fork, with the five descriptors it was sent:
 * the bot's stdin, stdout and stderr, the status pipe and this start's control socket (issue 18:
 * any Python the child runs before the sandbox writes to pages it shares with the zygote, each a
 * copy-on-write fault; doing this in C cut the outer process's ~450 faults). It reads the
 * launcher's arguments from the control socket into a buffer of its own (wiped in the bot's
 * process, as sandbox_enter's), then the bot's request (kept for sandbox_request()), makes
 * the descriptors 0-3, closes every other one and builds the sandbox. Returns 0 in the bot's
 * process; -1 (nothing built, nothing else done) on a malformed request. */
int sandbox_enter_from(const int *fds) {
    if (setsid() < 0) return -1;  /* its own session and group, as the exec path's */
    int control = fds[4];
    size_t size = read_size(control);
    char *args = size ? malloc(size) : NULL;
    if (args == NULL || read_full(control, args, size) != 0) return -1;
    bot_request_size = read_size(control);
    bot_request = bot_request_size ? malloc(bot_request_size) : NULL;
    if (bot_request == NULL || read_full(control, bot_request, bot_request_size) != 0) return -1;
    /* 0-3 from the five, by way of numbers above any target */
    int high[4];
    for (int i = 0; i < 4; i++) {
        high[i] = fcntl(fds[i], F_DUPFD, 16);
        if (high[i] < 0) return -1;
    }
    for (int i = 0; i < 4; i++)
        if (dup2(high[i], i) < 0) return -1;
    if (syscall(SYS_close_range, 4, ~0U, 0) != 0) {
        for (int fd = 4; fd < 1 << 16; fd++) close(fd);
    }
    return sandbox_enter(args, size);
}

/* The zygote's fork (issue 18): in C, so that the outer process and PID 1 run no Python at all.
 * Python's os.fork() runs the interpreter's after-fork work in the child (PyOS_AfterFork_Child:
 * its locks, threads and at-fork callbacks), ~0.8 ms and ~200 copy-on-write faults, for a process
 * that only runs this file's C code; the zygote runs it in the bot's process instead, where the
 * interpreter runs on. Returns the child's PID in the zygote (-1: fork failed), 0 in the bot's
 * process, inside its sandbox; a child whose request is malformed exits with 126. */
pid_t sandbox_fork_enter(const int *fds) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    if (sandbox_enter_from(fds) != 0) _exit(126);
    return 0;
}

/* In the bot's process, after sandbox_enter_from(): its request, and its size. */
const char *sandbox_request(void) {
    return bot_request;
}

size_t sandbox_request_size(void) {
    return bot_request_size;
}
#else
/* Every descriptor but 0-2 and the status pipe: the referee passes the sealed memfd this program
 * was exec'ed from (arena/sandbox.py: launcher()), which no bot needs to hold. */
static void close_inherited(void) {
    int keep = spec.status_fd;
    if (keep > 3 && syscall(SYS_close_range, 3, keep - 1, 0) != 0)
        for (int fd = 3; fd < keep; fd++) close(fd);
    if (syscall(SYS_close_range, keep + 1, ~0U, 0) != 0)
        for (int fd = keep + 1; fd < 1 << 16; fd++) close(fd);
}

int main(int argc, char **argv) {
    parse(argc, forget_arguments(argc, argv));
    close_inherited();
    launch();
    return 127;  /* not reached: launch() execs the bot or exits */
}
#endif
