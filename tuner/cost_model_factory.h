// The cost model named on the command line (--model): "random" (learns nothing),
// "none" (a fresh TLP network trained online from this run's measurements only),
// or the path of a model file written by `tlptune train`. Specs joined by '+'
// (a.tlpm+b.tlpm+c.tlpm) rank as one ensemble (EnsembleCostModel).
#pragma once

#include <memory>
#include <string>

#include "search/cost_model.h"

namespace tlp {

// Throws std::runtime_error naming the problem (a missing, corrupt or foreign file).
// A model trained on another platform is accepted with a note on stderr: online
// fine-tuning adapts it to this machine.
// update_epochs / update_records: the TLP model's online fine-tuning per round
// (epochs, and records trained on); -1 keeps TlpCostModelOptions' defaults.
std::unique_ptr<CostModel> make_cost_model(const std::string &spec, const std::string &platform, uint64_t seed,
                                           int update_epochs = -1, int update_records = -1);

}  // namespace tlp
