#include "tuner/train_recipe.h"

#include <stdexcept>

namespace tlp {
namespace {

// What both recipes share: log-scaled step numbers, batches of 256 records
// (the paper's 1024 are for millions of records), the paper's network.
TrainOptions common_settings() {
  TrainOptions o;
  o.batch = 256;
  o.seed = 1;
  o.featurizer.scaling = FeatureScaling::Log;
  return o;
}

TrainOptions tlptune_settings() {
  TrainOptions o = common_settings();
  o.featurizer.split_tails = true;
  o.featurizer.named_loops = true;
  o.featurizer.tile_rows = 8;
  o.featurizer.seq_len = kPaperStepRows + o.featurizer.tile_rows;
  o.epochs = 80;
  o.patience = 0;
  o.ema_epochs = 3.0;
  return o;
}

TrainOptions paper_settings() {
  TrainOptions o = common_settings();
  o.featurizer.seq_len = kPaperStepRows;
  o.epochs = 50;
  o.patience = 10;
  return o;
}

}  // namespace

const std::vector<TrainRecipe> &train_recipes() {
  // "tlptune" ranks held-out operators best of the settings tried; "paper" is
  // kept to compare against.
  static const std::vector<TrainRecipe> recipes = {
      {"tlptune",
       "split tails, named loops, 8 tile rows, 80 epochs to the end, a moving average of the weights over 3 epochs",
       tlptune_settings()},
      {"paper", "the TLP paper's steps and 50 epochs, stopping after 10 without a better validation loss",
       paper_settings()},
  };
  return recipes;
}

const TrainRecipe &train_recipe(const std::string &name) {
  std::string known;
  for (const TrainRecipe &r : train_recipes()) {
    if (r.name == name) return r;
    known += (known.empty() ? "" : ", ") + r.name;
  }
  throw std::runtime_error("unknown --recipe '" + name + "': use one of " + known);
}

}  // namespace tlp
