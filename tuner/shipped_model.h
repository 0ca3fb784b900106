// The TLP models that ship with tlptune (models/ in the source tree), so that a
// plain `tlptune tune` is guided by one. models/models.json names the machine
// each was trained on; --model default takes the one trained on this
// microarchitecture, else the nearest, and says which and why: a model ranks
// schedules best on the machine whose measurements it learned, and online
// fine-tuning adapts it to another one. None knows GPU schedules or other
// architectures.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Halide.h>

#include "measure/machine_identity.h"

namespace tlp {

// One entry of models/models.json.
struct ShippedModel {
  std::string file;               // in models/
  std::string isa;                // "avx512", "avx2": the targets it was trained for
  std::string vendor;             // of the machine it was trained on
  std::string microarchitecture;  // of that machine
  std::string trained_on;         // for people: the machine and data
};

// Reads the manifest's text ("format": "tlptune-models", "version": 1). Throws
// std::runtime_error naming what is wrong, or a version this tlptune does not read.
std::vector<ShippedModel> parse_model_manifest(const std::string &text);

// "avx512", "avx2", "sse41" for an x86-64 CPU target; "" otherwise (GPU, other architectures).
std::string target_isa(const Halide::Target &target);

struct ShippedModelChoice {
  std::string path;    // empty: none fits
  std::string file;    // its name in models/
  std::string reason;  // for the summary: why this one
};

// The nearest model to `machine` for targets of `isa`: trained on this
// microarchitecture, else on the same vendor's with the same ISA, else any with
// the same ISA, else the AVX2 model stands in for another x86 ISA. `locate`
// turns a file name into a path ("" if missing); a missing file is passed over.
ShippedModelChoice choose_shipped_model(const std::vector<ShippedModel> &models, const std::string &isa,
                                        const MachineIdentity &machine,
                                        const std::function<std::string(const std::string &)> &locate);

// choose_shipped_model with the installed manifest and this machine; empty for a
// target no shipped model fits (a GPU, another architecture) or when models/ is missing.
ShippedModelChoice shipped_model_for(const Halide::Target &target);

}  // namespace tlp
