// Named sets of `tlptune train` settings. A user training a model for their own
// machine should get the settings that ranked held-out operators best here
// without knowing five options; the paper's setup stays one word away for
// comparison. Options given on the command line override the recipe's.
//
// Every default of `tlptune train` is here: a recipe is a whole TrainOptions.
#pragma once

#include <string>
#include <vector>

#include "costmodel/tlp_trainer.h"

namespace tlp {

// The steps a CPU schedule's matrix keeps (the paper's 25 x 22).
constexpr int kPaperStepRows = 25;

struct TrainRecipe {
  std::string name;
  std::string summary;  // one line for --help
  // The matrix has kPaperStepRows step rows plus the recipe's tile rows.
  TrainOptions settings;
};

// Every recipe; the first is the default.
const std::vector<TrainRecipe> &train_recipes();

// The recipe of that name; throws std::runtime_error naming the known ones.
const TrainRecipe &train_recipe(const std::string &name);

}  // namespace tlp
