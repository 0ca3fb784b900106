#include "measure/measure_record.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "search/tlptune_version.h"

namespace tlp {

namespace {

using nlohmann::json;

// The line's keys, in the order to_line writes them. Never rename one: old logs
// must stay readable. A new key needs a new kRecordFormatVersion, since readers
// refuse keys they do not know.
constexpr const char *kKeyOrder[] = {"v",      "workload", "target",  "platform",
                                     "schedule", "costs",  "median",  "error",
                                     "message", "build_s", "run_s",   "time"};

const json &field(const json &j, const char *key) {
  const auto it = j.find(key);
  if (it == j.end()) throw RecordError(std::string("record has no '") + key + "' field");
  return *it;
}

RecordError wrong_type(const char *key, const json &value, const char *expected) {
  return RecordError(std::string("record field '") + key + "' should be " + expected +
                     ", got " + value.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::string string_field(const json &j, const char *key) {
  const json &v = field(j, key);
  if (!v.is_string()) throw wrong_type(key, v, "a string");
  return v.get<std::string>();
}

// Numbers; null stands for a non-finite value (JSON has no NaN or infinity).
double number_value(const json &v, const char *key) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) throw wrong_type(key, v, "a number");
  return v.get<double>();
}

double number_field(const json &j, const char *key) { return number_value(field(j, key), key); }

// Written only when known; a record of format 1 may carry them too.
constexpr const char *kOptionalKeys[] = {"cpu_wait", "machine", "ptxas"};

std::string versions_read() {
  return std::string("this tlptune (") + kTlptuneVersion + ") reads record formats 1 to " +
         std::to_string(kRecordFormatVersion);
}

// A key this version does not know was written by a newer one, and may change
// what the record means (which measurements count, say): refused, not skipped.
void refuse_unknown_keys(const json &j) {
  for (const auto &item : j.items()) {
    bool known = false;
    for (const char *k : kKeyOrder) known = known || item.key() == k;
    for (const char *k : kOptionalKeys) known = known || item.key() == k;
    if (!known)
      throw RecordError("record field '" + item.key() + "' is unknown (written by a newer tlptune?); " +
                        versions_read() + ": upgrade tlptune");
  }
}

int version_of(const json &j) {
  const json &v = field(j, "v");
  if (!v.is_number_integer()) throw wrong_type("v", v, "an integer format version");
  const int version = v.get<int>();
  if (version > kRecordFormatVersion) {
    throw RecordError("record format version " + std::to_string(version) +
                      " is newer than this tlptune understands; " + versions_read() + ": upgrade tlptune");
  }
  if (version < 1) throw RecordError("record format version " + std::to_string(version) +
                                     " is not valid (versions start at 1)");
  return version;
}

}  // namespace

std::string MeasureRecord::dedup_key() const {
  return workload_key + "|" + target + "|" + schedule.to_text();
}

json MeasureRecord::to_json() const {
  json j;
  j["v"] = version;
  j["workload"] = workload_key;
  j["target"] = target;
  j["platform"] = platform;
  j["schedule"] = schedule.to_json();
  j["costs"] = costs;
  j["median"] = median_cost;
  j["error"] = measure_error_name(error);
  j["message"] = error_message;
  j["build_s"] = build_seconds;
  j["run_s"] = run_seconds;
  j["time"] = timestamp;
  if (cpu_wait) j["cpu_wait"] = *cpu_wait;
  if (machine) j["machine"] = machine->to_json();
  if (ptxas) j["ptxas"] = ptxas->to_json();
  return j;
}

std::string MeasureRecord::to_line() const {
  // nlohmann::json sorts keys; the line is assembled in kKeyOrder instead so "v"
  // leads and a person reading the log sees the workload first.
  const json j = to_json();
  std::string line = "{";
  for (const char *key : kKeyOrder) {
    if (line.size() > 1) line += ",";
    line += json(key).dump();
    line += ":";
    line += j.at(key).dump(-1, ' ', false, json::error_handler_t::replace);
  }
  if (cpu_wait) line += ",\"cpu_wait\":" + j.at("cpu_wait").dump();  // optional
  if (machine) line += ",\"machine\":" + j.at("machine").dump(-1, ' ', false, json::error_handler_t::replace);
  if (ptxas) line += ",\"ptxas\":" + j.at("ptxas").dump();  // optional, last
  line += "}";
  return line;
}

MeasureRecord MeasureRecord::from_json(const json &j) {
  if (!j.is_object()) throw RecordError("a record must be a JSON object");
  MeasureRecord r;
  r.version = version_of(j);  // first: a newer record may lack fields we expect
  refuse_unknown_keys(j);
  r.workload_key = string_field(j, "workload");
  r.target = string_field(j, "target");
  r.platform = string_field(j, "platform");
  try {
    r.schedule = Schedule::from_json(field(j, "schedule"));
  } catch (const RecordError &) {
    throw;
  } catch (const std::exception &e) {
    throw RecordError(std::string("record field 'schedule' is not a valid schedule: ") +
                      e.what());
  }
  const json &costs = field(j, "costs");
  if (!costs.is_array()) throw wrong_type("costs", costs, "an array of numbers");
  for (const json &c : costs) r.costs.push_back(number_value(c, "costs"));
  r.median_cost = number_field(j, "median");
  try {
    r.error = measure_error_from_name(string_field(j, "error"));
  } catch (const RecordError &) {
    throw;
  } catch (const std::exception &e) {
    throw RecordError(std::string("record field 'error': ") + e.what());
  }
  r.error_message = string_field(j, "message");
  r.build_seconds = number_field(j, "build_s");
  r.run_seconds = number_field(j, "run_s");
  r.timestamp = number_field(j, "time");
  if (const auto it = j.find("cpu_wait"); it != j.end() && it->is_number()) r.cpu_wait = it->get<double>();
  if (const auto it = j.find("machine"); it != j.end()) {
    try {
      r.machine = MachineIdentity::from_json(*it);
    } catch (const std::exception &e) {
      throw RecordError(std::string("record field 'machine': ") + e.what());
    }
  }
  if (const auto it = j.find("ptxas"); it != j.end() && it->is_object()) r.ptxas = PtxasReport::from_json(*it);
  return r;
}

}  // namespace tlp
