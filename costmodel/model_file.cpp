#include "costmodel/model_file.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "search/tlptune_version.h"

namespace tlp {
namespace {

using nlohmann::json;

constexpr char kMagic[8] = {'T', 'L', 'P', 'M', 'O', 'D', 'E', 'L'};

uint64_t fnv1a(const char *data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= uint8_t(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

void put_u32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}
void put_u64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}
uint64_t get_le(const std::string &s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(uint8_t(s[at + i])) << (8 * i);
  return v;
}

json info_to_json(const TlpModelInfo &info) {
  const TlpTrainingInfo &t = info.training;
  json j;
  j["format"] = "tlptune-model";
  j["architecture"] = {{"arch", tlp_arch_name(info.network.arch)},
                       {"seq_len", info.network.seq_len},
                       {"emb_size", info.network.emb_size},
                       {"hidden", info.network.hidden},
                       {"heads", info.network.heads},
                       {"output_heads", info.network.output_heads}};
  j["featurizer"] = {{"seq_len", info.featurizer.seq_len},
                     {"emb_size", info.featurizer.emb_size},
                     {"scaling", feature_scaling_name(info.featurizer.scaling)},
                     {"tile_rows", info.featurizer.tile_rows},
                     {"split_tails", info.featurizer.split_tails},
                     {"named_loops", info.featurizer.named_loops}};
  j["platform"] = info.platform;
  if (!info.platforms.empty()) j["platforms"] = info.platforms;
  j["training"] = {{"records", t.records}, {"tasks", t.tasks},         {"created", t.created},
                   {"loss", t.loss},       {"epochs", t.epochs},       {"best_epoch", t.best_epoch},
                   {"seconds", t.seconds}, {"note", t.note}};
  // JSON has no NaN: a missing validation loss is null.
  j["training"]["best_val_loss"] = std::isfinite(t.best_val_loss) ? json(t.best_val_loss) : json(nullptr);
  return j;
}

// Keys of an object that change what a model predicts: an unknown one means a
// newer tlptune wrote the file, and reading past it would featurize wrongly.
void refuse_unknown_keys(const json &object, std::initializer_list<const char *> known, const char *what) {
  for (const auto &item : object.items()) {
    bool found = false;
    for (const char *k : known) found = found || item.key() == k;
    if (!found)
      throw ModelFileError(std::string("its ") + what + " has a setting '" + item.key() +
                           "' that this tlptune does not know (written by a newer tlptune?)");
  }
}

// Format 1 files left out the featurizer keys added after them (off), and
// could ask for loop-nest or workload rows, which tlptune no longer has.
void migrate_format_1(json &f) {
  for (const char *removed : {"nest_rows", "workload_rows"}) {
    if (f.value(removed, 0) != 0)
      throw ModelFileError(std::string("it uses ") + removed + ", a feature this tlptune no longer has; retrain it");
    f.erase(removed);
  }
  if (!f.contains("tile_rows")) f["tile_rows"] = 0;
  if (!f.contains("split_tails")) f["split_tails"] = false;
  if (!f.contains("named_loops")) f["named_loops"] = false;
}

TlpModelInfo info_from_json(json j, uint32_t version) {
  TlpModelInfo info;
  const json &a = j.at("architecture");
  if (version == 1 && !a.contains("output_heads")) j["architecture"]["output_heads"] = 1;
  refuse_unknown_keys(a, {"arch", "seq_len", "emb_size", "hidden", "heads", "output_heads"}, "architecture");
  info.network.arch = tlp_arch_from_name(a.at("arch").get<std::string>());
  info.network.seq_len = a.at("seq_len").get<int>();
  info.network.emb_size = a.at("emb_size").get<int>();
  info.network.hidden = a.at("hidden").get<int>();
  info.network.heads = a.at("heads").get<int>();
  info.network.output_heads = a.at("output_heads").get<int>();
  json &f = j.at("featurizer");
  if (version == 1) migrate_format_1(f);
  refuse_unknown_keys(f, {"seq_len", "emb_size", "scaling", "tile_rows", "split_tails", "named_loops"}, "featurizer");
  info.featurizer.seq_len = f.at("seq_len").get<int>();
  info.featurizer.emb_size = f.at("emb_size").get<int>();
  info.featurizer.scaling = feature_scaling_from_name(f.at("scaling").get<std::string>());
  info.featurizer.tile_rows = f.at("tile_rows").get<int>();
  info.featurizer.split_tails = f.at("split_tails").get<bool>();
  info.featurizer.named_loops = f.at("named_loops").get<bool>();
  info.platform = j.at("platform").get<std::string>();
  info.platforms = j.value("platforms", std::vector<std::string>());
  const json &t = j.at("training");
  info.training.records = t.value("records", int64_t(0));
  info.training.tasks = t.value("tasks", int64_t(0));
  info.training.created = t.value("created", std::string());
  info.training.loss = t.value("loss", std::string());
  info.training.epochs = t.value("epochs", 0);
  info.training.best_epoch = t.value("best_epoch", 0);
  info.training.seconds = t.value("seconds", 0.0);
  info.training.note = t.value("note", std::string());
  if (t.contains("best_val_loss") && t["best_val_loss"].is_number())
    info.training.best_val_loss = t["best_val_loss"].get<double>();
  return info;
}

void check_consistent(const TlpModelInfo &info, const std::string &what) {
  info.network.validate();
  if (info.network.seq_len != info.featurizer.seq_len || info.network.emb_size != info.featurizer.emb_size)
    throw ModelFileError(what + ": the network takes " + std::to_string(info.network.seq_len) + " x " +
                         std::to_string(info.network.emb_size) + " matrices but the featurizer makes " +
                         std::to_string(info.featurizer.seq_len) + " x " + std::to_string(info.featurizer.emb_size));
  try {
    check_featurizer_options(info.featurizer);
  } catch (const std::invalid_argument &e) {
    throw ModelFileError(what + ": " + e.what());
  }
  const size_t heads = size_t(info.network.output_heads);
  if (heads > 1 && info.platforms.size() != heads)
    throw ModelFileError(what + ": the network has " + std::to_string(heads) + " output heads but " +
                         std::to_string(info.platforms.size()) + " platforms are named for them");
  if (heads == 1 && info.platforms.size() > 1)
    throw ModelFileError(what + ": " + std::to_string(info.platforms.size()) +
                         " platforms are named for a network with one output head");
}

// The parts of a checked file.
struct Parsed {
  TlpModelInfo info;
  std::string weights;
};

Parsed parse(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelFileError("cannot read model file '" + path + "': " + std::strerror(errno) +
                                "; check the --model path");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  const std::string name = "model file '" + path + "'";
  const std::string retrain = "; train the model again (tlptune train) or copy the file again";

  if (s.size() < sizeof(kMagic) || std::memcmp(s.data(), kMagic, sizeof(kMagic)) != 0)
    throw ModelFileError(name + " is not a tlptune model (it does not start with the TLPMODEL signature); "
                         "pass a file written by 'tlptune train', or --model none to train online");
  size_t at = sizeof(kMagic);
  auto need = [&](size_t n, const char *part) {
    if (s.size() < at || s.size() - at < n)
      throw ModelFileError(name + " is truncated (" + std::to_string(s.size()) + " bytes, cut inside its " + part +
                           ")" + retrain);
  };
  need(4, "format version");
  const uint32_t version = uint32_t(get_le(s, at, 4));
  at += 4;
  if (version > uint32_t(kTlpModelFormatVersion))
    throw ModelFileError(name + " has format version " + std::to_string(version) + ", written by a newer tlptune; " +
                         "this tlptune (" + kTlptuneVersion + ") reads model formats 1 to " +
                         std::to_string(kTlpModelFormatVersion) + ": upgrade tlptune or use a model written by this one");
  if (version < 1) throw ModelFileError(name + " has an invalid format version 0; the file is corrupt" + retrain);
  need(8, "metadata length");
  const uint64_t meta_len = get_le(s, at, 8);
  at += 8;
  need(meta_len, "metadata");
  const std::string meta = s.substr(at, size_t(meta_len));
  at += size_t(meta_len);
  need(8, "weights length");
  const uint64_t weights_len = get_le(s, at, 8);
  at += 8;
  need(weights_len, "weights");
  Parsed p;
  p.weights = s.substr(at, size_t(weights_len));
  at += size_t(weights_len);
  need(8, "checksum");
  const uint64_t stored = get_le(s, at, 8);
  if (stored != fnv1a(s.data(), at))
    throw ModelFileError(name + " is corrupt (its checksum does not match its contents)" + retrain);
  if (at + 8 != s.size())
    throw ModelFileError(name + " is corrupt (" + std::to_string(s.size() - at - 8) +
                         " unexpected bytes after the checksum)" + retrain);
  json j;
  try {
    j = json::parse(meta);
  } catch (const json::exception &e) {
    throw ModelFileError(name + " has unreadable metadata (" + e.what() + ")" + retrain);
  }
  if (!j.is_object() || j.value("format", std::string()) != "tlptune-model")
    throw ModelFileError(name + " is not a tlptune model (its metadata has no tlptune-model tag)");
  try {
    p.info = info_from_json(j, version);
  } catch (const ModelFileError &e) {  // what the migration refuses, said of this file
    throw ModelFileError(name + ": " + e.what());
  } catch (const std::exception &e) {
    throw ModelFileError(name + " has unreadable metadata (" + e.what() + ")" + retrain);
  }
  p.info.format_version = int(version);
  try {
    check_consistent(p.info, name);
  } catch (const ModelFileError &) {
    throw;
  } catch (const std::exception &e) {
    throw ModelFileError(name + " describes an invalid network (" + e.what() + ")" + retrain);
  }
  return p;
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void save_tlp_model(const std::string &path, const TlpNetwork &network, const TlpModelInfo &info_in) {
  TlpModelInfo info = info_in;
  info.format_version = kTlpModelFormatVersion;
  if (info.network != network.config())
    throw ModelFileError("cannot save model '" + path + "': its info describes another network than the one given");
  check_consistent(info, "cannot save model '" + path + "'");
  const std::string meta = info_to_json(info).dump();
  const std::string weights = network.save_weights();
  std::string out(kMagic, sizeof(kMagic));
  put_u32(out, uint32_t(kTlpModelFormatVersion));
  put_u64(out, meta.size());
  out += meta;
  put_u64(out, weights.size());
  out += weights;
  put_u64(out, fnv1a(out.data(), out.size()));

  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw ModelFileError("cannot write model file '" + tmp + "': " + std::strerror(errno) +
                                 "; check the path and permissions");
    f.write(out.data(), std::streamsize(out.size()));
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw ModelFileError("cannot write model file '" + tmp + "' (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw ModelFileError("cannot move '" + tmp + "' to '" + path + "': " + why);
  }
}

namespace {

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const auto &n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

// The head of an MTL-TLP model for `platform`.
int head_for(const TlpModelInfo &info, const std::string &path, const std::string &platform) {
  if (platform.empty())
    throw ModelFileError("model file '" + path + "' is an MTL-TLP model with a head per platform (" +
                         joined(info.platforms) + "); name the platform to predict for (--platform)");
  for (size_t k = 0; k < info.platforms.size(); ++k)
    if (info.platforms[k] == platform) return int(k);
  throw ModelFileError("model file '" + path + "' has no head for platform '" + platform + "'; its heads are " +
                       joined(info.platforms) + ": pick one of them, or train with this platform's records");
}

}  // namespace

LoadedTlpModel load_tlp_model(const std::string &path, const std::string &platform) {
  Parsed p = parse(path);
  const bool mtl = !p.info.platforms.empty();
  const int head = mtl ? head_for(p.info, path, platform) : 0;
  if (mtl) p.info.platform = platform;
  if (!platform.empty() && p.info.platform != platform)
    throw ModelFileError("model file '" + path + "' was trained for platform '" + p.info.platform +
                         "', not this one ('" + platform +
                         "'); train a model on records from this platform (tlptune train), or use --model none "
                         "to train one online");
  TlpNetwork net(p.info.network);
  try {
    net.load_weights(p.weights);
  } catch (const std::exception &e) {
    throw ModelFileError("model file '" + path + "' holds weights that cannot be loaded: " + e.what() +
                         "; train the model again (tlptune train)");
  }
  if (mtl) {
    p.info.network.output_heads = 1;
    return LoadedTlpModel{p.info, net.single_head(head)};
  }
  return LoadedTlpModel{p.info, std::move(net)};
}

TlpModelInfo read_tlp_model_info(const std::string &path) { return parse(path).info; }

}  // namespace tlp
