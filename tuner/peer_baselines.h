// Peers: other tuners and libraries measured beside tlptune on the same machine,
// with tlptune's own protocol, so their figures can be compared with tlptune's.
//
//   - Halide's autoschedulers (Adams2019, Mullapudi2016, Li2018): the plugin
//     schedules the operator's algorithm, the kernel is compiled and linked like a
//     tuning candidate, and tlptune-runner times it on the task data and checks
//     it against the reference, exactly as during tuning.
//   - Libraries (OpenBLAS sgemm, oneDNN convolution and matmul): tlptune-peer-bench times
//     them on the same task data with the runner's warm-up/repeat/median rule and
//     the same check. It runs without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in
//     its environment (they force OpenBLAS onto older kernels); tlptune's own
//     environment is left as it is.
//
// A peer that does not apply to the operator (OpenBLAS for softmax) is skipped
// with a note; a peer that fails or computes a wrong answer is reported as such.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "measure/measure_error.h"
#include "measure/timing_protocol.h"

namespace tlp {

struct PeerOptions {
  std::string op_spec;
  std::vector<std::string> peers;  // canonical names (see parse_peer_list); empty: all
  std::string target = "host";
  int threads = 0;                 // 0: every hardware thread
  int warmup = kDefaultWarmup;
  int min_repeats = kDefaultMinRepeats;
  int max_repeats = kDefaultMaxRepeats;
  double min_seconds = kDefaultMinSeconds;
  double rtol = kDefaultRtol;
  // Seconds for one peer's timing run: a library or an autoscheduler's kernel
  // is timed with its own setup, which can take far longer than one of ours.
  double run_timeout = 120;
  // Independent timing runs per peer; its figure is the best run's median. On a
  // small VM one run now and then lands at half speed, and tlptune's own kernels
  // are re-measured in rounds too, so one run alone would flatter tlptune.
  int rounds = 3;
  std::string work_dir;            // artifacts; a fresh temporary folder (removed) if empty
  bool verbose = false;            // let the autoschedulers' own output through to stderr
  // When no requested peer applies to the operator: refuse (a user asked about
  // this operator), or report them skipped (one operator of a network).
  bool refuse_when_none_applies = true;
};

struct PeerResult {
  std::string peer;                // "adams2019", "openblas", ...
  bool skipped = false;            // does not apply to the operator (see note)
  MeasureError error = MeasureError::Unknown;  // None when it ran and passed the check
  double median_seconds = 0;
  double gflops = 0;
  std::vector<double> costs;       // seconds per timed repeat of the best round
  std::vector<double> round_medians;  // each round's median seconds (0: that round failed)
  double max_abs_error = 0;        // against the reference (+inf: NaN/inf where finite was expected)
  bool checked = false;            // the output was checked against the reference
  std::string what_ran;            // "Halide Adams2019 (built-in weights)", OpenBLAS core, oneDNN impl
  std::string note;                // why it was skipped, or a caveat of the comparison
  std::string message;             // why it failed
  double build_seconds = 0;        // autoschedule + compile + link (Halide peers)
  std::string schedule_source;     // Halide peers: the schedule the autoscheduler chose

  bool ok() const { return !skipped && error == MeasureError::None; }
};

struct PeersReport {
  std::string workload;
  std::string target;
  int threads = 0;
  double flops = 0;
  std::vector<PeerResult> results;  // in the order requested

  nlohmann::json to_json() const;
};

// All peer names, in the default order: adams2019, mullapudi2016, li2018, openblas, onednn.
const std::vector<std::string> &peer_names();

// "Adams2019,openblas" -> {"adams2019", "openblas"} (case-insensitive, spaces and
// duplicates dropped). Throws std::runtime_error naming an unknown peer and the known ones.
std::vector<std::string> parse_peer_list(const std::string &csv);

// Measures each requested peer in turn. Throws std::runtime_error (WorkloadError,
// TargetError...) for options that cannot work; a peer's own failure is a result.
// `progress` (may be null) is told "measuring <peer>..." as each peer starts.
PeersReport run_peers(const PeerOptions &options, void (*progress)(const std::string &) = nullptr);

// The table `tlptune peers` prints.
std::string format_peers_table(const PeersReport &report);

// `env` (NAME=VALUE entries) without the entries of the named variables.
std::vector<std::string> environment_without(const std::vector<std::string> &env,
                                             const std::vector<std::string> &names);

// The variables removed from tlptune-peer-bench's environment.
const std::vector<std::string> &peer_bench_removed_variables();  // OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE

}  // namespace tlp
