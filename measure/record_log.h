// The records log: JSON lines, one MeasureRecord per line (see measure_record.h).
//
// Records are the project's data, so the log is only ever appended to: never
// truncated, rewritten or "repaired". A damaged line (a crash mid-write) is left in
// place and skipped by readers with a warning.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "measure/measure_record.h"

namespace tlp {

// Appends records to a log file.
//
// The file is opened (created if missing) by the constructor and kept open; each
// append is one write() of one whole line with O_APPEND, so lines from several
// threads or processes appending to the same log never interleave, and a record is
// in the kernel's hands (safe from a crash of tlptune) when append returns. The
// destructor fsyncs, making the records safe from a power cut too.
class RecordLog {
 public:
  // Throws RecordError, before writing anything, when the file cannot be opened for
  // writing ("cannot write log 'PATH': <reason>; check the path and permissions"),
  // or when it holds something other than tlptune records ("'PATH' is not a
  // tlptune log (line N is not a tlptune record); choose another --log file").
  explicit RecordLog(std::string path);
  ~RecordLog();

  RecordLog(const RecordLog &) = delete;
  RecordLog &operator=(const RecordLog &) = delete;

  // Appends one line. If the file did not end with a newline (a line cut short by
  // a crash), a newline is written first so the damaged line stays alone.
  // Throws RecordError if the write fails (e.g. the disk is full).
  void append(const MeasureRecord &record);

  // Flushes the file to the disk (fsync).
  void sync();

  const std::string &path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool needs_newline_ = false;
  std::mutex mutex_;
};

struct LogReadResult {
  std::vector<MeasureRecord> records;  // in file order
  std::vector<std::string> warnings;   // "PATH:LINE: why the line was skipped"
};

// Reads every record of a log. Blank lines are ignored. A line that cannot be read
// as a record is skipped with a warning ("PATH:LINE: skipped a truncated last line"
// for the last one); that is never fatal. Throws RecordError when the file does not
// exist ("log 'PATH' does not exist"), cannot be read, is not a tlptune log (its
// first non-blank line is not a record), or holds a record of a newer format
// version than this build understands.
LogReadResult read_record_log(const std::string &path);

}  // namespace tlp
