// The only code that runs inside a signal handler. It must be
// async-signal-safe, which Swift code cannot promise: atomic counters and one
// write(2), errno saved and restored. Everything else happens on the thread
// that polls the pipe.
#include "signal_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define SLUICE_MAX_SIGNAL 65

static int pipe_fds[2] = {-1, -1};
static unsigned pending[SLUICE_MAX_SIGNAL];
static unsigned totals[SLUICE_MAX_SIGNAL];

static void sluice_signal_handler(int signo) {
    int saved = errno;
    if (signo > 0 && signo < SLUICE_MAX_SIGNAL) {
        __atomic_fetch_add(&pending[signo], 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&totals[signo], 1, __ATOMIC_SEQ_CST);
    }
    unsigned char byte = (unsigned char)signo;
    // Non-blocking: when the pipe is full a wake-up is already pending, and the counters hold the truth.
    ssize_t ignored = write(pipe_fds[1], &byte, 1);
    (void)ignored;
    errno = saved;
}

int sluice_signal_pipe_install(const int *signals, int count) {
    if (pipe_fds[0] < 0) {
        int fds[2];
        if (pipe(fds) != 0) return -1;
        for (int i = 0; i < 2; i++) {
            fcntl(fds[i], F_SETFD, FD_CLOEXEC);
            fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        }
        pipe_fds[0] = fds[0];
        pipe_fds[1] = fds[1];
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = sluice_signal_handler;
    // Restart interrupted system calls: no thread has to expect EINTR because of us.
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < count; i++) sigaddset(&action.sa_mask, signals[i]);
    for (int i = 0; i < count; i++) {
        if (signals[i] <= 0 || signals[i] >= SLUICE_MAX_SIGNAL) { errno = EINVAL; return -1; }
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    }
    // A parent (a supervisor, a test runner) may have started us with these
    // signals blocked; the mask is inherited across exec. Unblock them in this
    // thread, so at least one thread takes them.
    if (pthread_sigmask(SIG_UNBLOCK, &action.sa_mask, NULL) != 0) return -1;
    return pipe_fds[0];
}

unsigned sluice_signal_take(int signo) {
    if (signo <= 0 || signo >= SLUICE_MAX_SIGNAL) return 0;
    return __atomic_exchange_n(&pending[signo], 0, __ATOMIC_SEQ_CST);
}

unsigned sluice_signal_total(int signo) {
    if (signo <= 0 || signo >= SLUICE_MAX_SIGNAL) return 0;
    return __atomic_load_n(&totals[signo], __ATOMIC_SEQ_CST);
}

// `sluice run` is a sidecar and a cron job: a supervisor's SIGTERM or
// logrotate's SIGHUP may come at any moment after exec, before the Swift
// runtime, Foundation, the argument parser or the `--state` file had their
// turn. So for `run` the handlers are installed before all of them: from the
// executable's .preinit_array, which the dynamic loader calls once the
// libraries are relocated and before any of their initializers (Foundation's
// take milliseconds). A signal that comes early is counted and its byte waits
// in the pipe for the listener thread, which serves it as soon as it starts.
// The other subcommands keep the default actions (Ctrl-C ends `sluice
// generate` at once).
static void sluice_signal_pipe_early(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 2 || argv == NULL || argv[1] == NULL || strcmp(argv[1], "run") != 0) return;
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};
    (void)sluice_signal_pipe_install(signals, (int)(sizeof signals / sizeof signals[0]));
}

__attribute__((section(".preinit_array"), used))
static void (*const sluice_signal_pipe_preinit)(int, char **, char **) = sluice_signal_pipe_early;
