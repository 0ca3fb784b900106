#include "measure/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

extern char **environ;

namespace tlp {

namespace {

using Clock = std::chrono::steady_clock;

// A point in time to wait until, expressed as poll() timeouts.
class Deadline {
 public:
  explicit Deadline(double seconds)
      : end_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(std::max(0.0, seconds)))) {}
  bool expired() const { return Clock::now() >= end_; }
  // Milliseconds left, rounded up so that a poll() does not wake just before the
  // deadline and spin; 0 once expired.
  int poll_ms() const {
    const double left = std::chrono::duration<double>(end_ - Clock::now()).count();
    if (left <= 0) return 0;
    return static_cast<int>(std::min(std::ceil(left * 1000.0), 2.0e9));
  }

 private:
  Clock::time_point end_;
};

std::string errno_text(int err) { return std::strerror(err); }

void close_fd(int &fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Moves fd to a number >= 3 (keeping O_CLOEXEC). The spawn maps pipe ends onto
// 0/1/2, and an end that already sat on one of those numbers would be clobbered
// (or keep its close-on-exec flag) when a parent runs with a standard stream closed.
int lift_above_stdio(int fd) {
  if (fd > 2) return fd;
  const int lifted = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int err = errno;
  ::close(fd);
  if (lifted < 0) throw WorkerError("cannot duplicate a pipe: " + errno_text(err));
  return lifted;
}

// A pipe whose both ends are close-on-exec and above the standard streams.
void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw WorkerError("cannot create a pipe: " + errno_text(errno));
  }
  try {
    fds[0] = lift_above_stdio(fds[0]);
  } catch (...) {
    ::close(fds[1]);
    throw;
  }
  try {
    fds[1] = lift_above_stdio(fds[1]);
  } catch (...) {
    ::close(fds[0]);
    throw;
  }
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// write() with SIGPIPE blocked in this thread only. If the write raised SIGPIPE
// (the reader is gone) the signal is left pending on this thread; it is consumed
// here, before the old mask comes back, unless one was already pending before we
// started (that one is not ours to swallow).
ssize_t write_without_sigpipe(int fd, const char *data, size_t size) {
  sigset_t pipe_only, old_mask, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigemptyset(&pending);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;

  pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
  const ssize_t n = ::write(fd, data, size);
  const int err = errno;
  if (n < 0 && err == EPIPE && !was_pending) {
    const timespec no_wait{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &no_wait) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  errno = err;
  return n;
}

std::string describe_exit_code(int code) { return "exited with code " + std::to_string(code); }

std::string describe_signal(int sig, bool core_dumped) {
  std::string text = "killed by signal " + std::to_string(sig);
  if (const char *name = ::strsignal(sig)) text += std::string(" (") + name + ")";
  if (core_dumped) text += ", core dumped";
  return text;
}

// Owns posix_spawn's attribute objects so every exit path destroys them.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// The child starts in a new process group (so kill() can reach its descendants),
// with no signals blocked, and with default handling for the signals a parent
// commonly ignores or catches, so a runner whose parent vanished dies on SIGPIPE.
void configure_attributes(posix_spawnattr_t *attr) {
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setpgroup(attr, 0);
  posix_spawnattr_setsigmask(attr, &none);
  posix_spawnattr_setsigdefault(attr, &defaults);
  posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                     POSIX_SPAWN_SETSIGDEF);
}

}  // namespace

WorkerProcess::WorkerProcess(const std::vector<std::string> &argv,
                             const std::string &stderr_path) {
  if (argv.empty() || argv[0].empty()) throw WorkerError("no program given to start");
  spawn(argv, stderr_path);
}

WorkerProcess::~WorkerProcess() { kill(); }

// posix_spawn rather than fork: the parent may be a large multi-threaded process
// (Halide, LibTorch), and glibc's posix_spawn uses a vfork-style clone, so nothing
// is copied and no non-async-signal-safe code runs between fork and exec. glibc
// also reports a failed exec as the return value, which gives a clear error.
void WorkerProcess::spawn(const std::vector<std::string> &argv,
                          const std::string &stderr_path) {
  int in_pipe[2];   // parent writes [1], child reads [0] as stdin
  int out_pipe[2];  // child writes [1] as stdout, parent reads [0]
  make_pipe(in_pipe);
  try {
    make_pipe(out_pipe);
  } catch (...) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    throw;
  }

  std::vector<char *> cargv;
  for (const std::string &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);

  int rc;
  {
    SpawnSetup setup;
    // dup2 clears close-on-exec on the new descriptor; every other pipe end stays
    // close-on-exec and vanishes at exec.
    posix_spawn_file_actions_adddup2(&setup.actions, in_pipe[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&setup.actions, out_pipe[1], STDOUT_FILENO);
    if (!stderr_path.empty()) {
      posix_spawn_file_actions_addopen(&setup.actions, STDERR_FILENO, stderr_path.c_str(),
                                       O_WRONLY | O_CREAT | O_APPEND, 0644);
    }
    configure_attributes(&setup.attr);
    rc = posix_spawnp(&pid_, cargv[0], &setup.actions, &setup.attr, cargv.data(), environ);
  }

  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  if (rc != 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    pid_ = -1;
    std::string what = "cannot start '" + argv[0] + "': " + errno_text(rc);
    if (!stderr_path.empty()) what += " (or cannot open '" + stderr_path + "' for its stderr)";
    throw WorkerError(what);
  }
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  // Non-blocking so that a child which stops reading cannot block send() past its
  // deadline, and a spurious poll() wake-up cannot block read_line().
  set_nonblocking(to_child_);
  set_nonblocking(from_child_);
}

bool WorkerProcess::send(const std::string &line, double timeout_seconds) {
  if (to_child_ < 0) return false;
  std::string data = line;
  if (data.empty() || data.back() != '\n') data += '\n';

  const Deadline deadline(timeout_seconds);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write_without_sigpipe(to_child_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // The pipe is full: wait for the child to drain it, but not past the deadline.
      if (deadline.expired()) return false;
      pollfd p{to_child_, POLLOUT, 0};
      if (::poll(&p, 1, deadline.poll_ms()) < 0 && errno != EINTR) return false;
      continue;
    }
    return false;  // EPIPE (child gone) or another hard error
  }
  return true;
}

void WorkerProcess::close_stdin() { close_fd(to_child_); }

std::optional<std::string> WorkerProcess::read_line(double timeout_seconds, ReadStatus *why) {
  auto result = [why](ReadStatus s) {
    if (why) *why = s;
  };
  const Deadline deadline(timeout_seconds);
  for (;;) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      result(ReadStatus::Line);
      return line;
    }
    if (from_child_ < 0) {
      result(ReadStatus::Closed);
      return std::nullopt;
    }
    pollfd p{from_child_, POLLIN, 0};
    const int ready = ::poll(&p, 1, deadline.poll_ms());
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      if (deadline.expired()) {
        result(ReadStatus::Timeout);
        return std::nullopt;
      }
      continue;
    }
    char chunk[65536];
    const ssize_t n = ready < 0 ? -1 : ::read(from_child_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
    } else if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
      continue;
    } else {
      // End of file, or the pipe is unusable: either way no reply will come.
      close_fd(from_child_);
      buffer_.clear();
      result(ReadStatus::Closed);
      return std::nullopt;
    }
  }
}

// Waits with waitid(WNOWAIT): the child is seen to have exited but stays a zombie,
// so its pid (and thus its process group id) cannot be reused before kill() has
// signalled the group and reaped it.
bool WorkerProcess::wait_exit(double timeout_seconds) {
  if (reaped_ || pid_ <= 0) return true;
  const Deadline deadline(timeout_seconds);
  for (;;) {
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    const int rc = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && info.si_pid == pid_) return true;
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return true;  // ECHILD: already reaped elsewhere (e.g. SIGCHLD ignored)
    if (deadline.expired()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

bool WorkerProcess::alive() { return !wait_exit(0); }

void WorkerProcess::kill() {
  close_pipes();
  if (pid_ <= 0 || reaped_) return;
  // The child is not reaped yet, so pid_ still names its group.
  ::kill(-pid_, SIGKILL);
  reap();
}

void WorkerProcess::reap() {
  int status = 0;
  pid_t rc;
  do {
    rc = ::waitpid(pid_, &status, 0);
  } while (rc < 0 && errno == EINTR);
  reaped_ = true;
  status_known_ = rc == pid_;
  status_ = status;
}

void WorkerProcess::close_pipes() {
  close_fd(to_child_);
  close_fd(from_child_);
  buffer_.clear();
}

std::string WorkerProcess::exit_description() const {
  if (pid_ <= 0) return "not started";
  if (!reaped_) {
    // Peek without reaping, so the description is right even before kill().
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid != pid_) {
      return "running";
    }
    if (info.si_code == CLD_EXITED) return describe_exit_code(info.si_status);
    return describe_signal(info.si_status, info.si_code == CLD_DUMPED);
  }
  if (!status_known_) return "exited (status unknown)";
  if (WIFEXITED(status_)) return describe_exit_code(WEXITSTATUS(status_));
  if (WIFSIGNALED(status_)) return describe_signal(WTERMSIG(status_), WCOREDUMP(status_));
  return "stopped (status " + std::to_string(status_) + ")";
}

namespace {

// Reads both pipes until they close or the deadline passes; true when it passed.
bool drain_until(int out_fd, int err_fd, ChildRun &r, const Deadline &deadline) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string *sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (deadline.expired()) return true;
    const int n = ::poll(fds, 2, deadline.poll_ms());
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, size_t(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  return false;
}

}  // namespace

ChildRun run_child(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                   double timeout_seconds) {
  if (argv.empty()) throw WorkerError("run_child: no program given");
  int out_pipe[2], err_pipe[2];
  make_pipe(out_pipe);
  try {
    make_pipe(err_pipe);
  } catch (...) {
    ::close(out_pipe[0]), ::close(out_pipe[1]);
    throw;
  }
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&setup.actions, err_pipe[1], 2);
  configure_attributes(&setup.attr);
  std::vector<char *> cargv, cenv;
  for (const auto &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto &e : env) cenv.push_back(const_cast<char *>(e.c_str()));
  cenv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0].c_str(), &setup.actions, &setup.attr, cargv.data(), cenv.data());
  ::close(out_pipe[1]), ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]), ::close(err_pipe[0]);
    throw WorkerError("cannot start " + argv[0] + ": " + errno_text(rc));
  }
  ChildRun r;
  r.timed_out = drain_until(out_pipe[0], err_pipe[0], r, Deadline(timeout_seconds));
  if (r.timed_out) ::kill(-pid, SIGKILL);
  ::close(out_pipe[0]), ::close(err_pipe[0]);
  while (::waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  r.exit_description = WIFEXITED(r.status) ? describe_exit_code(WEXITSTATUS(r.status))
                                           : describe_signal(WTERMSIG(r.status), WCOREDUMP(r.status));
  return r;
}

}  // namespace tlp
