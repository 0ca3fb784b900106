// One measurement of one schedule: the unit of tlptune's data. Records are stored
// as JSON lines (see record_log.h) and read back by resume, train, eval, show and
// replay, so the line format is stable; a change bumps kRecordFormatVersion.
//
// Line (keys in this order, "v" first so a log is recognizable from its first bytes):
//   {"v":2,"workload":"matmul:M=512,N=512,K=512","target":"...","platform":"...",
//    "schedule":[...steps...],"costs":[...],"median":0.001,"error":"none",
//    "message":"","build_s":0.3,"run_s":0.2,"time":1764470000.5}
// Then, where known, "cpu_wait": the share of the kernel's timed runs in which
// some task waited for a CPU (measure/cpu_interference.h), and "machine":{...},
// the CPU that ran it (measure/machine_identity.h). GPU records add
// "ptxas":{...} last: what ptxas reported of the kernels.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "measure/cpu_interference.h"
#include "measure/machine_identity.h"
#include "measure/measure_error.h"
#include "measure/ptxas.h"
#include "search/schedule.h"

namespace tlp {

// 2: a reader refuses keys it does not know (format 1 readers skipped them, and
// so read cpu_wait-flagged records as quiet ones). Both read alike otherwise.
// 3: CPU records name their machine ("machine"); older ones read as measured on
// a machine of unknown microarchitecture.
constexpr int kRecordFormatVersion = 3;

// A record or a log that cannot be read or written; the message says what to do.
class RecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MeasureRecord {
  std::string workload_key;  // e.g. "matmul:M=512,N=512,K=512"
  std::string target;        // the compile target
  std::string platform;      // the hardware it ran on (MTL-TLP's task key)
  Schedule schedule;
  std::vector<double> costs;  // seconds per timed run
  double median_cost = 0;     // median of costs (seconds)
  MeasureError error = MeasureError::None;
  std::string error_message;
  double build_seconds = 0;
  double run_seconds = 0;
  double timestamp = 0;  // unix seconds
  std::optional<double> cpu_wait;  // CPU contention while timed; absent in older logs
  std::optional<MachineIdentity> machine;  // the CPU that ran it; absent in older logs and GPU records
  std::optional<PtxasReport> ptxas;  // GPU kernels: registers, spills (from the build)
  int version = kRecordFormatVersion;

  // A usable measurement: no error and at least one cost.
  bool ok() const { return error == MeasureError::None && !costs.empty(); }

  // Timed while tasks waited for a CPU kBusyCpuWait of the time or more: its costs
  // are likely slower than the kernel runs on a quiet machine. Unknown (older
  // logs, kernels without pressure accounting) is not busy.
  bool timed_on_busy_machine() const { return cpu_wait && *cpu_wait >= kBusyCpuWait; }

  // Identifies the measured candidate: workload_key|target|schedule text.
  std::string dedup_key() const;

  nlohmann::json to_json() const;

  // to_json() as one line with keys in the documented order (no newline). Invalid
  // UTF-8 in strings is replaced rather than failing the write.
  std::string to_line() const;

  // Throws RecordError when a field is missing or has the wrong type, or when the
  // record's version is newer than kRecordFormatVersion. A non-finite number
  // written as null reads back as NaN.
  static MeasureRecord from_json(const nlohmann::json &j);
};

}  // namespace tlp
