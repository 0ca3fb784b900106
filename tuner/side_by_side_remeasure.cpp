#include "tuner/side_by_side_remeasure.h"

#include <algorithm>
#include <memory>

#include "codegen/operator.h"
#include "codegen/target.h"
#include "fleet/fleet_measurer.h"
#include "measure/measurer.h"
#include "measure/platform.h"

namespace tlp {

std::vector<double> remeasure_side_by_side(const std::vector<RemeasureKernel> &kernels, const RemeasureOptions &o,
                                           const std::atomic<bool> &stop,
                                           const std::function<void(int round)> &after_round) {
  if (kernels.empty()) return {};
  std::vector<std::unique_ptr<Operator>> ops;
  for (const RemeasureKernel &k : kernels) ops.push_back(make_operator(k.op));
  MeasurerOptions mo;
  mo.target = parse_target(o.target).to_string();
  mo.threads = {o.threads > 0 ? o.threads : hardware_threads()};
  mo.log_path = o.log_path;
  mo.settings.min_seconds = o.min_seconds;
  const auto measurer = make_measuring_service(o.fleet, mo);
  std::vector<const Operator *> op_of;
  std::vector<Schedule> schedules;
  for (size_t i = 0; i < kernels.size(); ++i) {
    op_of.push_back(ops[i].get());
    schedules.push_back(kernels[i].schedule);
  }
  std::vector<std::vector<double>> gflops(kernels.size());
  measurer->measure_side_by_side(op_of, schedules, o.rounds, stop, [&](size_t k, const MeasureRecord &r) {
    if (r.ok() && r.median_cost > 0) gflops[k].push_back(ops[k]->flops() / r.median_cost / 1e9);
  }, after_round);
  std::vector<double> out;
  for (const auto &g : gflops) out.push_back(g.empty() ? 0 : *std::max_element(g.begin(), g.end()));
  return out;
}

}  // namespace tlp
