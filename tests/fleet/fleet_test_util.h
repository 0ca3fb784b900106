// Starting tlptune on a fleet of ranks on this machine (mpirun --oversubscribe),
// and what the tests compare between a fleet's log and one process's.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tuner/cli_test_util.h"

namespace tlp::testing {

// With --enable-recovery a lost rank does not end the job (and mpirun exits 0
// whatever happened); without it, mpirun exits with rank 0's code.
inline const std::string kMpirun =
    std::string("'") + TLP_MPIRUN + "' --oversubscribe --allow-run-as-root --enable-recovery ";
inline const std::string kMpirunNoRecovery = std::string("'") + TLP_MPIRUN + "' --oversubscribe --allow-run-as-root ";

// `mpirun -np RANKS tlptune ARGS` (ARGS go through the shell unquoted).
inline CliRun fleet_run(int ranks, const std::string &args, const std::string &mpirun = kMpirun) {
  return run_program("/bin/sh", "-c \"" + mpirun + "-np " + std::to_string(ranks) + " '" + TLPTUNE_PATH + "' " + args +
                                    "\"");
}

// `mpirun -np 1 tlptune ARGS : -np 1 RANK ...`: rank 0 runs the command, the
// other ranks are the programs given.
inline CliRun mixed_fleet(const std::string &args, const std::vector<std::string> &ranks,
                          const std::string &mpirun = kMpirunNoRecovery) {
  std::string cmd = mpirun + "-np 1 '" + TLPTUNE_PATH + "' " + args;
  for (const auto &r : ranks) cmd += " : -np 1 '" + r + "'";
  return run_program("/bin/sh", "-c \"" + cmd + "\"");
}

// platform + workload + schedule of each record, and how often each occurs.
inline std::map<std::string, int> measured(const std::string &log) {
  std::map<std::string, int> out;
  for (const auto &r : read_json_lines(log))
    ++out[r.at("platform").dump() + r.at("workload").dump() + r.at("schedule").dump()];
  return out;
}

inline std::set<std::string> keys_of(const nlohmann::json &record) {
  std::set<std::string> k;
  for (const auto &[key, value] : record.items()) k.insert(key);
  return k;
}

}  // namespace tlp::testing
