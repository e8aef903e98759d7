/* The sandbox launcher: starts one bot inside fresh Linux namespaces.
 *
 * Built and run by arena/sandbox.py, once per bot start:
 *
 *   sandbox-launch --status-fd=N --parent=PID --cwd=DIR --base=DIR [--uid=N] [--userns]
 *                  [--limit=KEY=N]... [--expose=PATH]... [--hide=PATH]... [--cgroup=DIR]...
 *                  -- ARGV...
 *
 * It is C, not Python, because it runs at every bot start: a Python launcher spent ~30 ms of CPU
 * per bot (interpreter, ctypes, json), as much as a short match between two C bots; this one
 * spends ~1 ms. Linux only; needs nothing but libc.
 *
 * It runs as two processes, because a new PID namespace only applies to the children of the
 * process that creates it:
 *
 * - the *outer* process (the one the referee started, in its own session) unshares the network,
 *   mount, PID, IPC and UTS namespaces (and a user namespace with --userns, when not root), forks
 *   the inner process and exits with it;
 * - the *inner* process is PID 1 of the new PID namespace. It mounts a fresh /proc (the bot sees
 *   only its own processes, never the referee's pipes or the other bot), gives the bot private
 *   /tmp-like folders, makes runtime folders that only root may enter reachable read-only, hides
 *   the arena's data folders, forks the bot, applies the resource limits, drops to the bot's user
 *   id and execs it. Then it reaps, and when the bot exits it reports on the status pipe (one JSON
 *   object per line): the exit status, CPU time, peak memory and how many processes the bot left
 *   running. When PID 1 of a namespace exits, the kernel kills every process still in it: nothing
 *   a bot starts, not even a setsid daemon, outlives it.
 *
 * With --cgroup (one per hierarchy: v1 has one for memory and one for pids), the outer process
 * joins the bot's cgroups first of all, before it forks: the bot and everything it starts are in
 * them from their first instruction (arena/cgroups.py made them and set their caps).
 *
 * Both processes ask the kernel to kill them when their parent dies (PR_SET_PDEATHSIG), so a
 * referee killed with kill -9 takes its bots with it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
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
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The new mount API (Linux 5.2): the same numbers on every architecture. */
#define SYS_OPEN_TREE 428
#define SYS_MOVE_MOUNT 429
#define OPEN_TREE_CLONE 1
#define AT_RECURSIVE_ 0x8000
#define MOVE_MOUNT_F_EMPTY_PATH_ 4

#define MAX_PATHS 64
#define MAX_CGROUPS 4
/* After the bot exits, processes it started get this long to exit too before they count as left
 * behind (and are killed with the namespace). */
#define STRAGGLER_GRACE_MS 100

static const char *const SCRATCH[] = {"/tmp", "/var/tmp", "/dev/shm", "/run/lock"};

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
    const char *cwd, *base;
    long uid;                       /* -1: keep the caller's */
    int userns;
    const char *expose[MAX_PATHS], *hide[MAX_PATHS];
    int n_expose, n_hide;
    const char *cgroup[MAX_CGROUPS];
    int n_cgroup;
    char **argv;
} spec = {.status_fd = -1, .parent = -1, .uid = -1};

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

/* -- mounts ------------------------------------------------------------------------------------- */

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int inside(const char *path, const char *root) {
    size_t n = strlen(root);
    while (n > 0 && root[n - 1] == '/') n--;
    return strncmp(path, root, n) == 0 && path[n] == '/';
}

static void make_dirs(const char *path) {
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') { *p = 0; mkdir(buf, 0755); *p = '/'; }
    }
    mkdir(buf, 0755);
}

/* Mount an empty tmpfs over root and put back each of keep (paths inside it) as it was. The kept
 * trees are cloned before the tmpfs hides them (open_tree, Linux 5.2). */
static void cover(const char *root, const char **keep, int n_keep, const char *options,
                  int read_only) {
    int fds[MAX_PATHS + 1];
    char what[PATH_MAX + 32];
    for (int i = 0; i < n_keep; i++) {
        fds[i] = (int)syscall(SYS_OPEN_TREE, AT_FDCWD, keep[i],
                              OPEN_TREE_CLONE | AT_RECURSIVE_ | O_CLOEXEC);
        snprintf(what, sizeof what, "open_tree %s", keep[i]);
        if (fds[i] < 0) fail(what);
    }
    snprintf(what, sizeof what, "mount %s", root);
    check(mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, options), what);
    for (int i = 0; i < n_keep; i++) {
        make_dirs(keep[i]);
        snprintf(what, sizeof what, "move_mount %s", keep[i]);
        check((int)syscall(SYS_MOVE_MOUNT, fds[i], "", AT_FDCWD, keep[i],
                           MOVE_MOUNT_F_EMPTY_PATH_), what);
        close(fds[i]);
        if (read_only) {
            snprintf(what, sizeof what, "mount %s", keep[i]);
            check(mount(NULL, keep[i], NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, NULL),
                  what);
        }
    }
    if (read_only) {
        snprintf(what, sizeof what, "mount %s", root);
        check(mount(NULL, root, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, options),
              what);
    }
}

/* The folders anyone may write to become an empty tmpfs of the bot's own: nothing it leaves there
 * outlives it, reaches another bot, or fills the machine's disk. Its own folder (under /tmp) and
 * the exposed runtime paths are put back. */
static void private_scratch(long size_mb) {
    char roots[4][PATH_MAX];
    int n_roots = 0;
    for (size_t i = 0; i < sizeof SCRATCH / sizeof SCRATCH[0]; i++) {
        char real[PATH_MAX];
        if (!is_dir(SCRATCH[i]) || realpath(SCRATCH[i], real) == NULL) continue;
        int seen = 0;               /* /var/tmp may be a link to /tmp */
        for (int j = 0; j < n_roots; j++) seen |= strcmp(roots[j], real) == 0;
        if (!seen) snprintf(roots[n_roots++], PATH_MAX, "%s", real);
    }
    char options[64];
    if (size_mb > 0) snprintf(options, sizeof options, "mode=1777,size=%ldm", size_mb);
    else snprintf(options, sizeof options, "mode=1777");
    for (int r = 0; r < n_roots; r++) {
        const char *keep[MAX_PATHS + 1];
        int n_keep = 0;
        if (inside(spec.base, roots[r])) keep[n_keep++] = spec.base;
        for (int i = 0; i < spec.n_expose; i++)
            if (inside(spec.expose[i], roots[r])) keep[n_keep++] = spec.expose[i];
        cover(roots[r], keep, n_keep, options, 0);
    }
}

/* The outermost folder on path that others may not enter, or 0 when every one may be entered. */
static int untraversable_root(const char *path, char *root) {
    char current[PATH_MAX] = "";
    size_t len = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (len + 1 + n >= sizeof current) return 0;
        current[len++] = '/';
        memcpy(current + len, p, n);
        current[len += n] = 0;
        p += n;
        struct stat st;
        if (stat(current, &st) != 0) return 0;
        if (!(st.st_mode & S_IXOTH)) { strcpy(root, current); return 1; }
    }
    return 0;
}

/* Make each exposed path reachable read-only by an unprivileged bot. A folder such as /root (mode
 * 0700) may hold the Python the bot needs: in the bot's private mount namespace, an empty tmpfs is
 * mounted over that folder (hiding the rest of it) and only the needed paths are put back inside
 * it, read-only. Nothing changes outside the namespace. */
static void expose(void) {
    char roots[MAX_PATHS][PATH_MAX];
    const char *keep[MAX_PATHS][MAX_PATHS];
    int n_keep[MAX_PATHS] = {0}, n_roots = 0;
    for (int i = 0; i < spec.n_expose; i++) {
        char root[PATH_MAX];
        if (access(spec.expose[i], F_OK) != 0 || !untraversable_root(spec.expose[i], root) ||
            strcmp(root, spec.expose[i]) == 0)
            continue;
        int r = 0;
        while (r < n_roots && strcmp(roots[r], root) != 0) r++;
        if (r == n_roots) snprintf(roots[n_roots++], PATH_MAX, "%s", root);
        keep[r][n_keep[r]++] = spec.expose[i];
    }
    for (int r = 0; r < n_roots; r++) cover(roots[r], keep[r], n_keep[r], "mode=0755,size=1m", 1);
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

static void start_bot(void) {
    /* The referee may have ignored these, and ignored signals survive exec: a bot gets the
     * defaults back, so a file too large kills it with SIGXFSZ. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    apply_limits();
    if (spec.uid >= 0) {
        check(setgroups(0, NULL), "setgroups");
        check(setgid((gid_t)spec.uid), "setgid");
        check(setuid((uid_t)spec.uid), "setuid");
    }
    check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl");  /* setuid programs gain nothing */
    check(chdir(spec.cwd), "chdir");
    execvp(spec.argv[0], spec.argv);
    report_error("cannot start '%s': %s", spec.argv[0], strerror(errno));
    _exit(127);
}

static void inner(int lifeline) {
    check(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "prctl");
    /* Our parent is outside this PID namespace, so getppid() says 0 whether it lives or not; the
     * lifeline pipe, whose writing end only the outer process holds, reads end of file once it
     * died. */
    struct pollfd p = {lifeline, POLLIN, 0};
    if (poll(&p, 1, 0) > 0) _exit(1);  /* it died before we could ask to die with it */
    close(lifeline);
    check(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), "mount /");  /* nothing propagates */
    check(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL), "mount /proc");
    long file_mb = 0;
    for (size_t i = 0; i < N_LIMITS; i++)
        if (strcmp(LIMITS[i].key, "file_mb") == 0) file_mb = LIMITS[i].value;
    private_scratch(file_mb);
    if (spec.uid >= 0) expose();
    for (int i = 0; i < spec.n_hide; i++) {
        if (!is_dir(spec.hide[i])) continue;
        /* the arena's records and data: an empty, read-only folder here */
        char what[PATH_MAX + 8];
        snprintf(what, sizeof what, "mount %s", spec.hide[i]);
        check(mount("tmpfs", spec.hide[i], "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                    "size=4k,mode=0555"), what);
    }
    pid_t bot = fork();
    if (bot < 0) fail("fork");
    if (bot == 0) start_bot();
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
        else if (OPTION("--expose") && spec.n_expose < MAX_PATHS) spec.expose[spec.n_expose++] = value;
        else if (OPTION("--hide") && spec.n_hide < MAX_PATHS) spec.hide[spec.n_hide++] = value;
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
                        "[--uid=N] [--userns] [--limit=KEY=N]... [--expose=PATH]... "
                        "[--hide=PATH]... [--cgroup=DIR]... -- ARGV...\n");
        exit(2);
    }
    spec.argv = argv + i + 1;
}

int main(int argc, char **argv) {
    parse(argc, argv);
    /* the bot must not inherit the status pipe (closed at its exec) */
    fcntl(spec.status_fd, F_SETFD, FD_CLOEXEC);
    check(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "prctl");
    if (getppid() != (pid_t)spec.parent) _exit(1);  /* the referee died before we could ask */
    join_cgroups();
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET;
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
    int life[2];
    check(pipe2(life, O_CLOEXEC), "pipe");
    pid_t child = fork();
    if (child < 0) fail("fork");
    if (child == 0) {
        close(life[1]);
        inner(life[0]);
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
