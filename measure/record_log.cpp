#include "measure/record_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

namespace tlp {

namespace {

using nlohmann::json;

// Further than any real first record reaches; stops a large non-log file (with no
// newline in sight) from being read whole just to be refused.
constexpr size_t kMaxFirstLineBytes = 16u << 20;

// How every record line begins (measure_record.h); a line cut short by a crash
// still shows it, which is how a log holding only a damaged record is recognized.
constexpr const char *kRecordPrefix = "{\"v\":";

bool is_blank(const std::string &line) {
  return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

json parse_quietly(const std::string &line) { return json::parse(line, nullptr, false); }

bool is_record_json(const json &j) { return !j.is_discarded() && j.is_object() && j.contains("v"); }

bool looks_cut_short(const std::string &line) { return line.rfind(kRecordPrefix, 0) == 0; }

// The first line decides whether a file is a tlptune log: a record, or the start of
// one that a crash cut short.
bool acceptable_first_line(const std::string &line) {
  return is_record_json(parse_quietly(line)) || looks_cut_short(line);
}

RecordError not_a_log(const std::string &path, size_t line_no) {
  return RecordError("'" + path + "' is not a tlptune log (line " + std::to_string(line_no) +
                     " is not a tlptune record); choose another --log file");
}

RecordError cannot_write(const std::string &path, int err) {
  return RecordError("cannot write log '" + path + "': " + std::strerror(err) +
                     "; check the path and permissions");
}

struct FirstLine {
  bool found = false;  // false: the file is empty or blank
  std::string text;
  size_t line_no = 0;
};

// The first non-blank line, read at most kMaxFirstLineBytes into it.
FirstLine read_first_line(std::FILE *f) {
  FirstLine first;
  std::string line;
  size_t line_no = 1;
  int c;
  while ((c = getc_unlocked(f)) != EOF) {
    if (c != '\n') {
      line += static_cast<char>(c);
      if (line.size() < kMaxFirstLineBytes) continue;
    }
    if (!is_blank(line)) break;
    line.clear();
    ++line_no;
  }
  if (is_blank(line)) return first;
  first.found = true;
  first.text = std::move(line);
  first.line_no = line_no;
  return first;
}

bool ends_with_newline(std::FILE *f) {
  if (fseeko(f, 0, SEEK_END) != 0) return true;
  if (ftello(f) <= 0) return true;  // empty: nothing to separate from
  if (fseeko(f, -1, SEEK_END) != 0) return true;
  return std::fgetc(f) == '\n';
}

int record_version(const json &j) {
  const auto it = j.find("v");
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

std::string where(const std::string &path, size_t line_no) {
  return path + ":" + std::to_string(line_no) + ": ";
}

}  // namespace

// ---------------------------------------------------------------------------

RecordLog::RecordLog(std::string path) : path_(std::move(path)) {
  // O_APPEND never truncates and lands every write at the end. O_NONBLOCK only
  // keeps a FIFO given by mistake from blocking the open; it is cleared at once.
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd_ < 0) throw cannot_write(path_, errno);
  ::fcntl(fd_, F_SETFL, O_APPEND);

  std::FILE *f = std::fopen(path_.c_str(), "rb");
  if (!f) {
    const int err = errno;
    ::close(fd_);
    throw RecordError("cannot read log '" + path_ + "' to check it: " + std::strerror(err) +
                      "; check the path and permissions");
  }
  const FirstLine first = read_first_line(f);
  needs_newline_ = !ends_with_newline(f);
  std::fclose(f);
  if (first.found && !acceptable_first_line(first.text)) {
    ::close(fd_);  // nothing was written: the file is exactly as we found it
    throw not_a_log(path_, first.line_no);
  }
}

RecordLog::~RecordLog() {
  if (fd_ < 0) return;
  ::fsync(fd_);
  ::close(fd_);
}

void RecordLog::sync() {
  std::lock_guard<std::mutex> lock(mutex_);
  ::fsync(fd_);
}

void RecordLog::append(const MeasureRecord &record) {
  std::string data = record.to_line();
  data += '\n';
  std::lock_guard<std::mutex> lock(mutex_);
  if (needs_newline_) data.insert(data.begin(), '\n');
  // One write() per line: with O_APPEND the whole line lands at the end at once.
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      const int err = n < 0 ? errno : EIO;
      // Part of the line may be on disk: start the next record on a fresh line.
      needs_newline_ = true;
      throw RecordError("cannot append to log '" + path_ + "': " + std::strerror(err));
    }
  }
  needs_newline_ = false;
}

// ---------------------------------------------------------------------------

LogReadResult read_record_log(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    throw RecordError("log '" + path + "' does not exist");
  }
  std::FILE *head = std::fopen(path.c_str(), "rb");
  if (!head) throw RecordError("cannot read log '" + path + "': " + std::strerror(errno));
  const FirstLine first = read_first_line(head);
  const bool head_failed = std::ferror(head) != 0;
  std::fclose(head);
  if (head_failed) throw RecordError("cannot read log '" + path + "': read error");
  if (first.found && !acceptable_first_line(first.text)) throw not_a_log(path, first.line_no);

  std::ifstream in(path, std::ios::binary);
  if (!in) throw RecordError("cannot read log '" + path + "': " + std::strerror(errno));

  LogReadResult result;
  // An unreadable line is only known to be the last one when no other follows, so
  // its warning waits for the next non-blank line.
  std::optional<size_t> unreadable_line;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (is_blank(line)) continue;
    if (unreadable_line) {
      result.warnings.push_back(where(path, *unreadable_line) + "skipped an unparsable line");
      unreadable_line.reset();
    }
    const json j = parse_quietly(line);
    if (!is_record_json(j)) {
      unreadable_line = line_no;
      continue;
    }
    try {
      result.records.push_back(MeasureRecord::from_json(j));
    } catch (const RecordError &e) {
      // A newer record is fatal, not skipped: silently dropping data that a newer
      // tlptune wrote would mislead train and eval; the message says to upgrade.
      if (record_version(j) > kRecordFormatVersion) {
        throw RecordError(where(path, line_no) + e.what());
      }
      result.warnings.push_back(where(path, line_no) + "skipped a bad record: " + e.what());
    }
  }
  if (in.bad()) throw RecordError("cannot read log '" + path + "': read error");
  if (unreadable_line) {
    result.warnings.push_back(where(path, *unreadable_line) + "skipped a truncated last line");
  }
  return result;
}

}  // namespace tlp
