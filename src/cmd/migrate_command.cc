// `draplane migrate`: workload manifests from `nvidia.com/gpu: N` to DRA
// (src/migrate/migrate.h has the rules).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/manifest_inputs.h"
#include "common/str_cat.h"
#include "migrate/migrate.h"

namespace draplane::cmd {
namespace {

namespace fs = std::filesystem;

struct MigrateFlags {
  std::vector<std::string> files;
  bool recursive = false;
  std::vector<std::string> class_map;
  std::string mig_class = "mig.nvidia.com";
  std::string output = "yaml";
  std::string output_dir;
  bool keep_going = false;
  bool quiet = false;
};

int RunMigrate(const MigrateFlags& flags, Streams streams) {
  if (flags.output != "yaml") {
    streams.err << "error: --output must be yaml, not \"" << flags.output
                << "\"\n";
    return 2;
  }
  migrate::MigrateOptions options;
  options.mig_class = flags.mig_class;
  for (const std::string& entry : flags.class_map) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size()) {
      streams.err << "error: --class-map wants RESOURCE=DEVICECLASS, not \""
                  << entry << "\"\n";
      return 2;
    }
    options.class_map[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  auto inputs = ReadManifestInputs(flags.files, flags.recursive, std::cin);
  if (!inputs.ok()) {
    streams.err << "error: " << inputs.status().message() << "\n";
    return 1;
  }
  migrate::Migrator migrator(options);
  for (const ManifestInput& in : *inputs) {
    if (absl::Status s = migrator.IndexTemplates(in.text, in.source); !s.ok()) {
      streams.err << "error: " << s.message() << "\n";
      return 1;
    }
  }
  std::vector<std::pair<const ManifestInput*, std::string>> outputs;
  int converted = 0, templates = 0, refused = 0;
  for (const ManifestInput& in : *inputs) {
    auto result = migrator.Migrate(in.text, in.source);
    if (!result.ok()) {
      streams.err << "error: " << result.status().message() << "\n";
      return 1;
    }
    if (!flags.quiet) {
      for (const std::string& note : result->notes) {
        streams.err << note << "\n";
      }
    }
    for (const migrate::Refusal& r : result->refusals) {
      streams.err << "error: " << r.source << ":" << r.line << ": " << r.object
                  << ": " << r.field << ": " << r.reason << "\n";
    }
    converted += result->converted;
    templates += result->templates_added;
    refused += static_cast<int>(result->refusals.size());
    outputs.emplace_back(&in, std::move(result->text));
  }
  if (refused > 0 && !flags.keep_going) {
    streams.err << "error: " << refused
                << " workload(s) cannot be converted; nothing was written "
                   "(--keep-going writes the others and leaves these as they "
                   "are)\n";
    return 1;
  }
  if (flags.output_dir.empty()) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string& text = outputs[i].second;
      if (i > 0 && !text.empty()) streams.out << "---\n";
      streams.out << text;
      if (!text.empty() && text.back() != '\n') streams.out << "\n";
    }
  } else {
    for (const auto& [in, text] : outputs) {
      fs::path target = fs::path(flags.output_dir) / in->relative;
      std::error_code ec;
      fs::create_directories(target.parent_path(), ec);
      std::ofstream file(target, std::ios::binary | std::ios::trunc);
      file << text;
      file.close();
      if (ec || !file) {
        streams.err << "error: cannot write \"" << target.string() << "\""
                    << (ec ? StrCat(": ", ec.message()) : "") << "\n";
        return 1;
      }
    }
  }
  if (!flags.quiet) {
    streams.err << "migrated " << converted << " workload(s), added "
                << templates << " ResourceClaimTemplate(s)"
                << (refused ? StrCat(", left ", refused, " unconverted") : "")
                << "\n";
  }
  return refused > 0 ? 1 : 0;
}

}  // namespace

void RegisterMigrate(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<MigrateFlags>();
  CLI::App* cmd = AddCommand(
      app, "migrate",
      "Convert workloads from nvidia.com/gpu: N to DRA resource claims",
      "Convert workloads that request GPUs as extended resources\n"
      "(nvidia.com/gpu: N in any container's limits or requests) to Dynamic\n"
      "Resource Allocation: a ResourceClaimTemplate per request shape\n"
      "(nvidia-gpu-2: 2 devices of class gpu.nvidia.com), resourceClaims in\n"
      "the pod spec, resources.claims in the containers, the extended\n"
      "resources removed. Pods, Deployments, StatefulSets, DaemonSets, Jobs,\n"
      "CronJobs, ReplicaSets, PodTemplates and Lists of them; everything\n"
      "else is copied unchanged.\n\n"
      "Each GPU container gets its own claim (as it had its own GPUs); a\n"
      "plain init container shares the claim of the first app container\n"
      "with at least as many GPUs (its GPUs were reused by them). MIG\n"
      "resources (nvidia.com/mig-1g.10gb) become class mig.nvidia.com with\n"
      "a profile selector. The guide's inline claims (resourceClaims[].\n"
      "source) become templates too.\n\n"
      "Changed documents are edited in place: comments and formatting stay\n"
      "(flow style, JSON input and Lists are written out again as YAML;\n"
      "a note says so). The output is deterministic and migrating it again\n"
      "changes nothing.\n\n"
      "Refused, with the field and the reason: fractions of a GPU, limits\n"
      "different from requests, GPU-sharing resources of other plugins\n"
      "(HAMi, Alibaba cGPU, Volcano vGPU, Tencent vcuda, NVIDIA time-slicing\n"
      "renames) and GPU resources missing from --class-map.\n\n"
      "Notes and errors go to standard error. Exit status: 0 converted (or\n"
      "nothing to do), 1 something refused or unreadable (nothing written\n"
      "unless --keep-going), 2 usage.\n\n"
      "Examples:\n"
      "  draplane migrate -f deploy/ > deploy-dra.yaml\n"
      "  helm template my-chart | draplane migrate -f -\n"
      "  draplane migrate -f manifests/ -R --output-dir manifests-dra/\n"
      "  draplane migrate -f rocm.yaml --class-map amd.com/gpu=gpu.amd.com");
  cmd->add_option("-f,--filename", flags->files,
                  "File, directory (its .yaml/.yml/.json files) or - for "
                  "standard input; repeatable")
      ->required();
  cmd->add_flag("-R,--recursive", flags->recursive,
                "Descend into subdirectories of directory arguments");
  cmd->add_option("--class-map", flags->class_map,
                  "RESOURCE=DEVICECLASS; repeatable (default "
                  "nvidia.com/gpu=gpu.nvidia.com)");
  cmd->add_option("--mig-class", flags->mig_class,
                  "DeviceClass for nvidia.com/mig-<profile> resources")
      ->capture_default_str();
  cmd->add_option("-o,--output", flags->output, "yaml")->capture_default_str();
  cmd->add_option("--output-dir", flags->output_dir,
                  "Write each migrated file below DIR (same relative path) "
                  "instead of one stream to standard output");
  cmd->add_flag("--keep-going", flags->keep_going,
                "Write the output even when some workloads are refused "
                "(those stay unchanged); the exit status is still 1");
  cmd->add_flag("-q,--quiet", flags->quiet, "Print only errors");
  cmd->callback([flags, streams, exit_code]() {
    *exit_code = RunMigrate(*flags, streams);
  });
}

}  // namespace draplane::cmd
