// Which kernels tune's final re-measurement runs again in each pass. Measuring
// the fastest few again raises their figures (the fastest single readings are
// the luckiest), so a kernel measured only once can rise to the top after a
// pass; the passes go on until the best kernel is confirmed by 1 + `rounds`
// measurements. The first three passes also confirm the rest of the top; later
// ones run only while the best itself is unconfirmed, and never more than
// kMaxFinalPasses in all.
#pragma once

#include <string>
#include <vector>

#include "measure/kernel_cost_table.h"

namespace tlp {

constexpr int kTopConfirmingPasses = 3;
constexpr int kMaxFinalPasses = 10;

// The kernels (keys of `costs`) to measure again, side by side, in pass number
// `pass` (from 0), given `top` and `rounds` as tune's --final-top and
// --final-rounds: those of the `top` cheapest with fewer than 1 + `rounds`
// measurements, plus the best so far (its figures from earlier passes are from
// another moment of a drifting machine). Empty when the passes are over.
std::vector<std::string> kernels_due_again(const KernelCostTable &costs, int top, int rounds, int pass);

// Whether the best kernel has the 1 + `rounds` measurements the passes aim for.
bool best_is_confirmed(const KernelCostTable &costs, int rounds);

}  // namespace tlp
