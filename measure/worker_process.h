// A child process spoken to in lines: one request line on its stdin, one reply line
// on its stdout. The builder and the runner both live behind one, so a candidate
// that crashes or hangs takes down only its worker, never the tuning run.
//
// The child runs in its own process group; kill() signals the whole group, so
// anything the child started dies with it. Pipes are created O_CLOEXEC, so no
// other child (spawned concurrently from another thread) inherits them.
//
// SIGPIPE: writing to a child that has died raises SIGPIPE in the writing thread.
// send() blocks SIGPIPE in the calling thread only (pthread_sigmask) for the
// duration of the write and discards a SIGPIPE that write raised, so the process's
// signal dispositions and other threads are never touched. A dead child shows up
// as send() returning false.
//
// One WorkerProcess is used from one thread at a time; distinct ones are
// independent (there is no global state).
#pragma once

#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tlp {

// The child could not be started (program not found, out of file descriptors...).
class WorkerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class WorkerProcess {
 public:
  enum class ReadStatus {
    Line,     // a complete line was read
    Timeout,  // no complete line before the deadline; the child may still be running
    Closed,   // the child closed its stdout: it exited, died, or closed it itself
  };

  // Starts argv[0] (looked up on PATH when it has no '/') with argv. The child's
  // stderr is inherited, or appended to stderr_path when that is not empty.
  // Throws WorkerError naming the program and the reason if it cannot start.
  explicit WorkerProcess(const std::vector<std::string> &argv,
                         const std::string &stderr_path = "");
  ~WorkerProcess();  // kill() then reap

  WorkerProcess(const WorkerProcess &) = delete;
  WorkerProcess &operator=(const WorkerProcess &) = delete;

  // Writes line plus '\n' (unless it already ends with one). False when the child
  // is gone, its stdin is closed, or the pipe stayed full for timeout_seconds.
  bool send(const std::string &line, double timeout_seconds = 10.0);

  // Closes the child's stdin, so a child reading lines sees end of input and can
  // exit by itself. Later send() calls return false.
  void close_stdin();

  // The next line from the child's stdout, without its '\n'. Waits at most
  // timeout_seconds (0 = only what is already available). On failure returns
  // nullopt and says why; a partial line before a close is dropped.
  std::optional<std::string> read_line(double timeout_seconds, ReadStatus *why = nullptr);

  // Waits up to timeout_seconds for the child to exit on its own. True once it has
  // exited (its status is kept for exit_description after kill()).
  bool wait_exit(double timeout_seconds);

  // SIGKILLs the child's process group, reaps the child and closes the pipes.
  // Safe to call more than once, and after the child exited by itself (then the
  // recorded status is its own exit, not the kill).
  void kill();

  bool alive();
  pid_t pid() const { return pid_; }

  // "running", "exited with code 3", "killed by signal 11 (Segmentation fault)"
  // (", core dumped" is added when the system wrote a core). Right both before
  // and after kill(): kill() keeps the status of a child that had already exited.
  std::string exit_description() const;

 private:
  void spawn(const std::vector<std::string> &argv, const std::string &stderr_path);
  void close_pipes();
  void reap();

  pid_t pid_ = -1;
  int to_child_ = -1;    // write end of the child's stdin
  int from_child_ = -1;  // read end of the child's stdout
  std::string buffer_;   // bytes read past the last returned line
  bool reaped_ = false;
  bool status_known_ = false;
  int status_ = 0;  // waitpid status, valid when status_known_
};

// A child run to its end, for programs that answer once (the library peers).
struct ChildRun {
  bool timed_out = false;
  int status = 0;                // as waitpid() gives it
  std::string exit_description;  // as WorkerProcess::exit_description()
  std::string out, err;          // all it wrote to stdout and stderr
};

// Runs argv (argv[0] looked up on PATH when it has no '/') with exactly `env`
// as its environment, stdin from /dev/null, stdout and stderr captured. Spawned
// as WorkerProcess spawns (own process group, no signals blocked, default
// dispositions); past timeout_seconds its process group is SIGKILLed and the
// child reaped. Throws WorkerError naming the program when it cannot start.
ChildRun run_child(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                   double timeout_seconds);

}  // namespace tlp
