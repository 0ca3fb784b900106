// tlptune export: a network's kernels as one library a project links
// (tuner/network_export.h says what is written).
#include <cstdio>
#include <memory>

#include "tuner/command.h"
#include "tuner/network_export.h"

namespace tlp {

Command add_export_command(CLI::App &app) {
  auto o = std::make_shared<NetworkExportOptions>();
  auto layouts = std::make_shared<std::string>("fixed");
  Command c;
  c.app = app.add_subcommand(
      "export",
      "Export the best kernel of every task of a network as one static library, one header and a CMake package "
      "(find_package(tlptune_kernels); link tlptune_kernels::kernels)");
  c.app->add_option("log", o->log_path, "The log the network was tuned into (tune --network / --onnx)")->required();
  c.app->add_option("--network", o->network_path,
                    "The network file (examples/networks/*.json, or the LOG.network.json that tune --onnx writes)")
      ->required();
  c.app->add_option("--out", o->out_dir, "Folder to write the package to (created if missing; an older export there is replaced)")
      ->required();
  c.app->add_option("--platform", o->platform, "Which platform's kernels, when the log holds several (tlptune show lists them)");
  c.app->add_option("--layouts", *layouts,
                    "fixed: each task's kernel in the layout its op names; any: its best kernel in any layout (the "
                    "header says which each expects)")
      ->check(CLI::IsMember({"fixed", "any"}))
      ->capture_default_str();
  c.app->add_flag("--allow-missing", o->allow_missing,
                  "Export the tasks that have a kernel even when some have none (they are listed; without this the "
                  "export fails)");
  c.app->footer(
      "\nThen, in your project's CMakeLists.txt:\n"
      "  find_package(tlptune_kernels REQUIRED)   # configure with -Dtlptune_kernels_DIR=OUT/lib/cmake/tlptune_kernels\n"
      "  target_link_libraries(app PRIVATE tlptune_kernels::kernels)\n"
      "and #include \"tlptune_kernels.h\". examples/network-library is a program that checks every kernel.");
  c.run = [o, layouts] {
    o->any_layout = *layouts == "any";
    const NetworkExport e = export_network(*o);
    int exported = 0;
    for (const ExportedTask &t : e.tasks) {
      if (t.function.empty()) {
        std::printf("  missing   %s (no valid kernel)\n", t.op.c_str());
        continue;
      }
      ++exported;
      std::printf("  %-9.4g %s x%g%s%s\n", t.seconds * 1e3, t.function.c_str(), t.weight,
                  t.packings.empty() ? "" : " (packed weights)",
                  t.onnx_nodes.empty() || t.onnx_nodes.front().empty() ? "" : (" <- ONNX " + t.onnx_nodes.front().front() +
                                               (t.onnx_nodes.size() > 1 ? ", ..." : "")).c_str());
    }
    std::printf("exported %d of %zu tasks of %s (%s) to %s: lib/libtlptune_kernels.a, include/tlptune_kernels.h\n",
                exported, e.tasks.size(), e.network.c_str(), e.platform.c_str(), o->out_dir.c_str());
    std::printf("estimated network latency over the exported tasks: %.3f ms (ms column: each kernel's best median)\n",
                e.latency * 1e3);
    if (e.missing) std::printf("%d task(s) missing: the library lacks them (--allow-missing)\n", e.missing);
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
