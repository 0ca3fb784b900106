#include "tuner/shipped_model.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tuner/shipped_files.h"

namespace tlp {
namespace {

constexpr const char *kManifestFormat = "tlptune-models";
constexpr int kManifestVersion = 1;
constexpr const char *kStandInIsa = "avx2";

std::string string_of(const nlohmann::json &j, const char *key, const std::string &where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) throw std::runtime_error(where + ": '" + key + "' should be a string");
  return it->get<std::string>();
}

std::string trained_text(const ShippedModel &m) { return m.microarchitecture + " (" + m.vendor + ", " + m.isa + ")"; }

ShippedModelChoice chosen(const ShippedModel &m, const std::string &path, const std::string &reason) {
  return {path, m.file, reason};
}

}  // namespace

std::vector<ShippedModel> parse_model_manifest(const std::string &text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error("models.json is not a JSON object");
  if (j.value("format", "") != kManifestFormat)
    throw std::runtime_error(std::string("models.json: 'format' should be '") + kManifestFormat + "'");
  const auto v = j.find("version");
  if (v == j.end() || !v->is_number_integer() || v->get<int>() < 1 || v->get<int>() > kManifestVersion)
    throw std::runtime_error("models.json: version " + (v == j.end() ? std::string("(none)") : v->dump()) +
                             " is not one this tlptune reads (1 to " + std::to_string(kManifestVersion) +
                             "): upgrade tlptune");
  const auto models = j.find("models");
  if (models == j.end() || !models->is_array()) throw std::runtime_error("models.json: 'models' should be an array");
  std::vector<ShippedModel> out;
  for (size_t i = 0; i < models->size(); ++i) {
    const std::string where = "models.json, model " + std::to_string(i);
    const nlohmann::json &m = (*models)[i];
    if (!m.is_object()) throw std::runtime_error(where + " should be an object");
    out.push_back({string_of(m, "file", where), string_of(m, "isa", where), string_of(m, "vendor", where),
                   string_of(m, "microarchitecture", where), string_of(m, "trained_on", where)});
  }
  return out;
}

std::string target_isa(const Halide::Target &target) {
  if (target.arch != Halide::Target::X86 || target.bits != 64 || target.has_gpu_feature()) return "";
  if (target.has_feature(Halide::Target::AVX512)) return "avx512";
  if (target.has_feature(Halide::Target::AVX2)) return "avx2";
  return "sse41";
}

ShippedModelChoice choose_shipped_model(const std::vector<ShippedModel> &models, const std::string &isa,
                                        const MachineIdentity &machine,
                                        const std::function<std::string(const std::string &)> &locate) {
  if (isa.empty()) return {};
  const std::string here = machine.microarchitecture.empty() ? machine.short_name() : machine.microarchitecture;
  // Ranks, best first: what the model shares with this machine and target.
  const std::function<bool(const ShippedModel &)> tests[] = {
      [&](const ShippedModel &m) {
        return m.isa == isa && !machine.microarchitecture.empty() && m.microarchitecture == machine.microarchitecture;
      },
      [&](const ShippedModel &m) { return m.isa == isa && m.vendor == machine.vendor; },
      [&](const ShippedModel &m) { return m.isa == isa; },
      [&](const ShippedModel &m) { return m.isa == kStandInIsa; },
  };
  for (size_t rank = 0; rank < std::size(tests); ++rank) {
    for (const ShippedModel &m : models) {
      if (!tests[rank](m)) continue;
      const std::string path = locate(m.file);
      if (path.empty()) continue;
      switch (rank) {
        case 0:
          return chosen(m, path, "trained on this microarchitecture, " + trained_text(m));
        case 1:
          return chosen(m, path, "none trained on " + here + "; nearest: same vendor and ISA, trained on " + trained_text(m));
        case 2:
          return chosen(m, path, "none trained on " + here + " or its vendor; nearest: same ISA, trained on " +
                                     trained_text(m));
        default:
          return chosen(m, path, "none trained for " + isa + " targets; the " + m.isa + " model, trained on " +
                                     trained_text(m) + ", stands in");
      }
    }
  }
  return {};
}

ShippedModelChoice shipped_model_for(const Halide::Target &target) {
  const std::string isa = target_isa(target);
  if (isa.empty()) return {};
  const std::string manifest = shipped_file("models/models.json");
  if (manifest.empty()) return {};
  std::ifstream f(manifest);
  std::stringstream text;
  text << f.rdbuf();
  return choose_shipped_model(parse_model_manifest(text.str()), isa, this_machine(),
                              [](const std::string &file) { return shipped_file("models/" + file); });
}

}  // namespace tlp
