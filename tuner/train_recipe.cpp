#include "tuner/train_recipe.h"

#include <stdexcept>

namespace tlp {

const std::vector<TrainRecipe> &train_recipes() {
  // "tlptune": held-out ResNet-50 on AVX-512, three seeds, top-1 0.81 / top-5 0.996
  // against 0.54 / 0.85 for "paper" (README, Results: "Tile rows").
  static const std::vector<TrainRecipe> recipes = {
      {"tlptune",
       "split tails, named loops, 8 tile rows, 80 epochs to the end, a moving average of the weights over 3 epochs",
       true, true, 8, 80, 0, 3.0},
      {"paper", "the TLP paper's steps and 50 epochs, stopping after 10 without a better validation loss", false, false,
       0, 50, 10, 0.0},
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
