// tlptune tasks: the tuning tasks of an ONNX model, as a network file.
#include <cstdio>
#include <memory>

#include "frontend/onnx_tasks.h"
#include "tuner/command.h"

namespace tlp {

namespace {

struct TasksOptions {
  std::string model;
  std::vector<std::string> inputs;  // NAME=DIMxDIM...
  std::string out;
};

double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

void print_network(const ExtractedNetwork &n) {
  int occurrences = 0;
  for (const ExtractedTask &t : n.tasks) occurrences += t.weight;
  printf("model      %s (%zu nodes)\n", n.source.c_str(), n.nodes);
  printf("tasks      %zu distinct operators serving %d occurrences: %.1f%% of the model's FLOPs (%.3g GFLOP "
         "of %.3g)\n\n",
         n.tasks.size(), occurrences, percent(n.mapped_flops, n.total_flops), n.mapped_flops / 1e9,
         n.total_flops / 1e9);
  printf("%6s  %-72s %s\n", "weight", "op", "onnx nodes (first occurrence)");
  for (const ExtractedTask &t : n.tasks) {
    std::string nodes;
    for (const std::string &name : t.nodes.front()) nodes += (nodes.empty() ? "" : ", ") + name;
    printf("%6d  %-72s %s\n", t.weight, t.op.c_str(), nodes.c_str());
  }
  if (n.unmapped.empty()) return;
  double unmapped = 0;
  for (const UnmappedOp &u : n.unmapped) unmapped += u.flops;
  printf("\nnot mapped (%.1f%% of the FLOPs):\n", percent(unmapped, n.total_flops));
  for (const UnmappedOp &u : n.unmapped)
    printf("  %-22s x%-4d %5.1f%%  %s\n", u.op_type.c_str(), u.count, percent(u.flops, n.total_flops), u.reason.c_str());
}

}  // namespace

Command add_tasks_command(CLI::App &app) {
  auto o = std::make_shared<TasksOptions>();
  Command c;
  c.app = app.add_subcommand("tasks", "Extract the tuning tasks of an ONNX model and write them as a network file");
  c.app->add_option("model", o->model, "An ONNX model file (.onnx)")->required();
  c.app->add_option("--input", o->inputs,
                    "NAME=DIMxDIM...: the shape of a graph input whose dimensions are symbolic (a dynamic batch) or "
                    "missing, e.g. --input data=1x3x224x224 (several allowed)");
  c.app->add_option("--out", o->out, "Write the tasks as a network file that 'tlptune tune --network' reads");
  c.app->footer(
      "Convolutions (with BatchNormalization and Relu fused), MatMul and Gemm (with a bias Add and Relu fused), "
      "Softmax, LayerNormalization, MaxPool, AveragePool and GlobalAveragePool become tasks; identical ones become one task weighted by how often "
      "it occurs. What is not mapped is listed with its share of the model's FLOPs.\n\n"
      "Example:\n  tlptune tasks resnet50.onnx --input data=1x3x224x224 --out resnet50.json\n"
      "  tlptune tune --network resnet50.json --trials 2000 --log resnet50.jsonl");
  c.run = [o] {
    const ExtractedNetwork n = import_onnx_tasks(o->model, o->inputs);
    print_network(n);
    if (!o->out.empty()) {
      write_network_file(n, o->out);
      printf("\nwrote %s: tune it with  tlptune tune --network %s --trials N --log LOG\n", o->out.c_str(),
             o->out.c_str());
    }
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
