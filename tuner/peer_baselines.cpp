#include "tuner/peer_baselines.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "codegen/halide_autoscheduler.h"
#include "codegen/kernel_compiler.h"
#include "codegen/layout_choice.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "measure/executable_path.h"
#include "measure/library_baselines/peer_workload.h"
#include "measure/platform.h"
#include "measure/runner_client.h"
#include "measure/task_data.h"
#include "measure/wall_clock.h"
#include "measure/work_dir.h"
#include "measure/worker_process.h"
#include "tuner/name_list.h"

extern char **environ;

namespace tlp {
namespace {

namespace fs = std::filesystem;

constexpr const char *kEntry = "tlp_kernel";

std::string lowercase(std::string s) {
  for (char &c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_library_peer(const std::string &peer) {
  const auto &libs = peer::peer_libraries();
  return std::find(libs.begin(), libs.end(), peer) != libs.end();
}

std::string tail_lines(const std::string &text, size_t max_chars = 2000) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.size() > max_chars) t = "..." + t.substr(t.size() - max_chars);
  return t;
}


// Sends this process's stderr (fd 2) to a file while alive: the autoschedulers
// print their search progress there. The text is kept for failure messages.
class StderrCapture {
 public:
  explicit StderrCapture(const std::string &path, bool active) : path_(path) {
    if (!active) return;
    fflush(stderr);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    saved_ = ::dup(2);
    if (saved_ < 0 || ::dup2(fd, 2) < 0) {
      if (saved_ >= 0) ::close(saved_);
      saved_ = -1;
    }
    ::close(fd);
  }
  ~StderrCapture() { restore(); }
  void restore() {
    if (saved_ < 0) return;
    fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  std::string text() {
    restore();
    std::ifstream f(path_);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }

 private:
  std::string path_;
  int saved_ = -1;
};

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

std::string halide_what_ran(const std::string &name) {
  std::string s = "Halide " + name;
  if (name == "Adams2019") {
    const char *weights = std::getenv("HL_WEIGHTS_DIR");
    s += weights && *weights ? std::string(" (weights from HL_WEIGHTS_DIR=") + weights + ")" : " (built-in weights)";
    // The plugin's other knobs, named when the environment sets them.
    for (const char *var : {"HL_BEAM_SIZE", "HL_RANDOM_DROPOUT", "HL_SEED", "HL_NUM_PASSES", "HL_NO_SUBTILING",
                            "HL_RANDOMIZE_WEIGHTS", "HL_AUTOSCHEDULE_MEMORY_LIMIT"})
      if (const char *v = std::getenv(var)) s += std::string(", ") + var + "=" + v;
  }
  return s;
}

// Shared by the two kinds of peer.
struct Context {
  const PeerOptions &o;
  const Operator &op;
  Halide::Target target;
  int threads;
  WorkDir &work;
  std::string task_dir;
  std::string runtime_object;  // built on first use
  std::unique_ptr<RunnerClient> runner;
};

// Times a peer cx.o.rounds times and keeps the round with the lowest median; a
// failed round ends it, since a crash or a wrong answer does not mend by repeating.
template <typename TimeOnce>
void time_in_rounds(Context &cx, PeerResult &r, TimeOnce time_once) {
  PeerResult best;
  for (int round = 0; round < std::max(1, cx.o.rounds); ++round) {
    PeerResult attempt = r;
    time_once(attempt);
    const bool ok = attempt.error == MeasureError::None && attempt.median_seconds > 0;
    r.round_medians.push_back(ok ? attempt.median_seconds : 0);
    if (round == 0 || (ok && attempt.median_seconds < best.median_seconds)) best = attempt;
    if (!ok) break;
  }
  best.round_medians = r.round_medians;
  r = best;
}

void run_halide_kernel(Context &cx, const std::string &dir, PeerResult &r);

void measure_halide_peer(Context &cx, PeerResult &r) {
  const std::string name = canonical_autoscheduler_name(r.peer);
  r.what_ran = halide_what_ran(name);
  const std::string dir = cx.work / r.peer;
  fs::create_directories(dir);
  const double t0 = steady_seconds();
  {
    StderrCapture capture(dir + "/autoscheduler.log", !cx.o.verbose);
    try {
      LoweredKernel k = autoschedule_with_halide(cx.op, name, cx.target, cx.threads);
      r.schedule_source = k.schedule_source;
      if (cx.runtime_object.empty()) {
        cx.runtime_object = cx.work / "halide_runtime.o";
        compile_runtime_object(cx.target, cx.runtime_object);
      }
      compile_kernel_object(k, cx.target, dir + "/kernel.o", kEntry);
      link_shared_library({dir + "/kernel.o", cx.runtime_object}, dir + "/kernel.so");
    } catch (const std::exception &e) {
      const std::string log = tail_lines(capture.text());
      r.error = MeasureError::CompileError;
      r.message = e.what();
      if (!log.empty()) r.message += "\n  autoscheduler output:\n" + log;
      r.build_seconds = steady_seconds() - t0;
      return;
    }
  }
  r.build_seconds = steady_seconds() - t0;
  time_in_rounds(cx, r, [&](PeerResult &round) { run_halide_kernel(cx, dir, round); });
}

void run_halide_kernel(Context &cx, const std::string &dir, PeerResult &r) {
  if (!cx.runner)
    cx.runner = std::make_unique<RunnerClient>(std::vector<std::string>{RunnerClient::default_runner_path()},
                                               cx.work / "runner.log");
  RunJob job;
  job.artifact = fs::absolute(dir + "/kernel.so").string();
  job.entry = kEntry;
  job.data_dir = fs::absolute(cx.task_dir).string();
  job.warmup = cx.o.warmup;
  job.min_repeats = cx.o.min_repeats;
  job.max_repeats = cx.o.max_repeats;
  job.min_seconds = cx.o.min_seconds;
  job.rtol = cx.o.rtol;
  job.threads = cx.threads;
  RunResult run = cx.runner->run(job, cx.o.run_timeout);
  r.error = run.error;
  r.costs = run.costs;
  r.median_seconds = run.median;
  r.max_abs_error = run.max_abs_error;
  r.checked = run.error == MeasureError::None || run.error == MeasureError::WrongAnswer;
  r.message = run.message;
}

void run_library_once(Context &cx, PeerResult &r);

void measure_library_peer(Context &cx, PeerResult &r) { time_in_rounds(cx, r, [&](PeerResult &round) { run_library_once(cx, round); }); }

void run_library_once(Context &cx, PeerResult &r) {
  const std::string bench = sibling_executable("tlptune-peer-bench");
  auto num = [](double v) {
    char b[64];
    snprintf(b, sizeof b, "%.17g", v);
    return std::string(b);
  };
  const std::vector<std::string> argv = {bench,
                                         "--workload", cx.op.workload().key(),
                                         "--library", r.peer,
                                         "--min-seconds", num(cx.o.min_seconds),
                                         "--min-repeats", std::to_string(cx.o.min_repeats),
                                         "--max-repeats", std::to_string(cx.o.max_repeats),
                                         "--warmup", std::to_string(cx.o.warmup),
                                         "--threads", std::to_string(cx.threads),
                                         "--rtol", num(cx.o.rtol),
                                         "--data", fs::absolute(cx.task_dir).string()};
  ChildRun child;
  try {
    child = run_child(argv, environment_without(current_environment(), peer_bench_removed_variables()),
                      cx.o.run_timeout);
  } catch (const WorkerError &e) {
    throw std::runtime_error(std::string(e.what()) +
                             " (tlptune-peer-bench is built beside tlptune; build the 'tlptune-peer-bench' target)");
  }
  if (child.timed_out) {
    r.error = MeasureError::RunTimeout;
    r.message = "tlptune-peer-bench ran past " + num(cx.o.run_timeout) + " s and was killed";
    return;
  }
  // Its one JSON line is the last non-empty line of its stdout.
  std::string line;
  std::istringstream lines(child.out);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) line = l;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const std::exception &) {
    r.error = child.status == 0 ? MeasureError::Unknown : MeasureError::RuntimeError;
    r.message = "tlptune-peer-bench " + child.exit_description + " without a result";
    const std::string err = tail_lines(child.err);
    if (!err.empty()) r.message += ": " + err;
    return;
  }
  try {
    r.error = measure_error_from_name(j.value("error", std::string("unknown")));
  } catch (const std::exception &) {
    r.error = MeasureError::Unknown;
  }
  r.what_ran = j.value("kernel", std::string());
  r.note = j.value("note", std::string());
  r.message = j.value("message", std::string());
  r.median_seconds = j.value("median_seconds", 0.0);
  if (j.contains("costs") && j["costs"].is_array()) r.costs = j["costs"].get<std::vector<double>>();
  r.checked = j.value("checked", false);
  if (j.contains("max_abs_error"))
    r.max_abs_error = j["max_abs_error"].is_number() ? j["max_abs_error"].get<double>()
                                                      : std::numeric_limits<double>::infinity();
}

std::string fixed(double v, int digits) {
  char b[64];
  snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

}  // namespace

const std::vector<std::string> &peer_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto &a : halide_autoscheduler_names()) n.push_back(lowercase(a));
    for (const auto &l : peer::peer_libraries()) n.push_back(l);
    return n;
  }();
  return names;
}

std::vector<std::string> parse_peer_list(const std::string &csv) {
  std::string known;
  for (const auto &n : peer_names()) known += (known.empty() ? "" : ", ") + n;
  std::string lower = csv;
  for (char &c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  const std::vector<std::string> out = split_name_list(lower);
  for (const std::string &item : out)
    if (std::find(peer_names().begin(), peer_names().end(), item) == peer_names().end())
      throw std::runtime_error("unknown peer '" + item + "' (known: " + known + ")");
  if (out.empty()) throw std::runtime_error("--peers names no peer (known: " + known + ")");
  return out;
}

const std::vector<std::string> &peer_bench_removed_variables() {
  static const std::vector<std::string> names = {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"};
  return names;
}

std::vector<std::string> environment_without(const std::vector<std::string> &env,
                                             const std::vector<std::string> &names) {
  std::vector<std::string> out;
  for (const auto &e : env) {
    const std::string name = e.substr(0, e.find('='));
    if (std::find(names.begin(), names.end(), name) == names.end()) out.push_back(e);
  }
  return out;
}

PeersReport run_peers(const PeerOptions &o, void (*progress)(const std::string &)) {
  if (o.min_repeats < 1 || o.max_repeats < o.min_repeats)
    throw std::runtime_error("need 1 <= --min-repeats <= --max-repeats");
  if (o.rounds < 1) throw std::runtime_error("--rounds must be at least 1");
  if (o.warmup < 0 || o.min_seconds < 0 || o.run_timeout <= 0)
    throw std::runtime_error("--warmup and --min-seconds must not be negative, --run-timeout must be positive");
  // Libraries pick their own layouts and Halide's autoschedulers schedule the plain
  // algorithm: a channel-blocked operator is measured in its plain form.
  auto op = make_operator(plain_layout_form(parse_workload(representative_spec(o.op_spec))));
  const Halide::Target target = parse_target(o.target);
  if (target.has_gpu_feature())
    throw std::runtime_error("target '" + o.target + "' is a GPU target; peers are measured on CPU targets only");
  if (!target_runs_here(target))
    throw std::runtime_error("target '" + target.to_string() + "' uses instructions this CPU lacks (host is " +
                             Halide::get_host_target().to_string() + "); its kernels cannot be measured here");
  const std::vector<std::string> peers = o.peers.empty() ? peer_names() : o.peers;
  for (const auto &p : peers)
    if (std::find(peer_names().begin(), peer_names().end(), p) == peer_names().end())
      throw std::runtime_error("unknown peer '" + p + "'");

  PeersReport report;
  report.workload = op->workload().key();
  report.target = target.to_string();
  report.threads = o.threads > 0 ? o.threads : hardware_threads();
  report.flops = op->flops();

  WorkDir work(o.work_dir, "tlptune-peers");
  Context cx{o, *op, target, report.threads, work, work / "task", "", nullptr};
  bool any_applies = false;
  for (const auto &p : peers) {
    PeerResult r;
    r.peer = p;
    if (is_library_peer(p)) {
      r.note = peer::library_unsupported_reason(p, op->workload().kind);
      r.skipped = !r.note.empty();
    }
    if (!r.skipped) any_applies = true;
    report.results.push_back(r);
  }
  if (!any_applies && o.refuse_when_none_applies)
    throw std::runtime_error("none of the requested peers applies to " + report.workload + ": " +
                             report.results.front().note);
  if (!any_applies) return report;
  write_task_data(*op, cx.task_dir);
  for (auto &r : report.results) {
    if (r.skipped) continue;
    if (progress) progress("measuring " + r.peer + "...");
    if (is_library_peer(r.peer)) measure_library_peer(cx, r);
    else measure_halide_peer(cx, r);
    if (r.error == MeasureError::None && r.median_seconds > 0) r.gflops = report.flops / r.median_seconds / 1e9;
  }
  return report;
}

nlohmann::json PeersReport::to_json() const {
  nlohmann::json peers = nlohmann::json::array();
  for (const auto &r : results) {
    nlohmann::json j = {{"peer", r.peer}, {"skipped", r.skipped}};
    if (!r.note.empty()) j["note"] = r.note;
    if (!r.skipped) {
      j["error"] = measure_error_name(r.error);
      j["what_ran"] = r.what_ran;
      j["checked"] = r.checked;
      if (r.ok()) j["median_seconds"] = r.median_seconds, j["gflops"] = r.gflops;
      j["costs"] = r.costs;
      j["round_medians"] = r.round_medians;
      if (r.checked)
        j["max_abs_error"] = std::isfinite(r.max_abs_error) ? nlohmann::json(r.max_abs_error) : nlohmann::json();
      if (!r.message.empty()) j["message"] = r.message;
      if (r.build_seconds > 0) j["build_seconds"] = r.build_seconds;
      if (!r.schedule_source.empty()) j["schedule_source"] = r.schedule_source;
    }
    peers.push_back(j);
  }
  return {{"workload", workload}, {"target", target}, {"threads", threads}, {"flops", flops}, {"peers", peers}};
}

std::string format_peers_table(const PeersReport &report) {
  std::ostringstream s;
  s << "peers of " << report.workload << "\ntarget " << report.target << ", " << report.threads << " threads, "
    << fixed(report.flops / 1e9, 3) << " GFLOP per run; each peer's figure is its fastest round's median\n\n";
  char line[512];
  snprintf(line, sizeof line, "%-14s %12s %10s %5s %8s  %s\n", "peer", "median ms", "GFLOP/s", "runs", "build s",
           "what ran");
  s << line;
  for (const auto &r : report.results) {
    if (r.skipped) {
      snprintf(line, sizeof line, "%-14s %12s %10s %5s %8s  %s\n", r.peer.c_str(), "-", "-", "-", "-",
               ("skipped: " + r.note).c_str());
      s << line;
      continue;
    }
    const std::string build = r.build_seconds > 0 ? fixed(r.build_seconds, 1) : "-";
    if (r.ok()) {
      snprintf(line, sizeof line, "%-14s %12s %10s %5zu %8s  %s\n", r.peer.c_str(),
               fixed(r.median_seconds * 1e3, 4).c_str(), fixed(r.gflops, 1).c_str(), r.costs.size(), build.c_str(),
               r.what_ran.c_str());
      s << line;
      if (r.round_medians.size() > 1) {
        s << std::string(56, ' ') << "medians of its " << r.round_medians.size() << " rounds (ms):";
        for (double m : r.round_medians) s << " " << (m > 0 ? fixed(m * 1e3, 4) : "failed");
        s << "\n";
      }
      if (!r.note.empty()) s << std::string(56, ' ') << "note: " << r.note << "\n";
    } else {
      const std::string status = std::string("FAILED ") + measure_error_name(r.error);
      snprintf(line, sizeof line, "%-14s %23s %5s %8s  %s\n", r.peer.c_str(), status.c_str(), "-", build.c_str(),
               r.what_ran.c_str());
      s << line;
      std::string msg = r.message;
      for (size_t pos = 0; (pos = msg.find('\n', pos)) != std::string::npos; pos += 7) msg.replace(pos, 1, "\n      ");
      s << "      " << msg << "\n";
    }
  }
  return s.str();
}

}  // namespace tlp
