#include "tuner/cost_model_factory.h"

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "costmodel/model_file.h"
#include "costmodel/tlp_cost_model.h"
#include "search/ensemble_cost_model.h"
#include "search/random_model.h"
#include "tuner/compute_dag_cache.h"

namespace tlp {

namespace {

std::vector<std::string> ensemble_members(const std::string &spec) {
  // A model file whose own name holds '+' is one model, not an ensemble.
  if (std::filesystem::is_regular_file(spec)) return {spec};
  std::vector<std::string> out;
  size_t begin = 0;
  for (;;) {
    const size_t end = spec.find('+', begin);
    out.push_back(spec.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (out.back().empty())
      throw std::runtime_error("--model '" + spec + "' has an empty member; join model files with '+', e.g. a.tlpm+b.tlpm");
    if (end == std::string::npos) return out;
    begin = end + 1;
  }
}

}  // namespace

std::unique_ptr<CostModel> make_cost_model(const std::string &spec, const std::string &platform, uint64_t seed,
                                           int update_epochs, int update_records) {
  const std::vector<std::string> members = ensemble_members(spec);
  if (members.size() > 1) {
    std::vector<std::unique_ptr<CostModel>> models;
    for (size_t i = 0; i < members.size(); ++i)
      models.push_back(make_cost_model(members[i], platform, seed + i, update_epochs, update_records));
    return std::make_unique<EnsembleCostModel>(std::move(models));
  }
  if (spec == "random") return std::make_unique<RandomModel>(seed);
  TlpCostModelOptions options;
  options.dags = make_compute_dag_lookup();
  if (update_epochs >= 0) options.update.epochs = update_epochs;
  if (update_records >= 0) options.max_update_records = size_t(update_records);
  if (spec == "none") {
    TrainOptions defaults;
    defaults.featurizer.scaling = FeatureScaling::Log;
    return make_untrained_tlp_cost_model(network_config(defaults), defaults.featurizer, platform, options, seed);
  }
  // An MTL-TLP model predicts with this platform's head (and refuses a platform it has none for).
  const bool mtl = !read_tlp_model_info(spec).platforms.empty();
  auto model = make_tlp_cost_model(spec, mtl ? platform : "", options);
  if (!platform.empty() && !model->info().platform.empty() && model->info().platform != platform)
    fprintf(stderr, "note: %s was trained on '%s'; this is '%s' (%s)\n", spec.c_str(),
            model->info().platform.c_str(), platform.c_str(),
            update_epochs == 0 ? "used as it is: no online fine-tuning" : "online fine-tuning adapts it");
  return model;
}

}  // namespace tlp
