// `draplane cel eval` and `draplane cel match`: CEL debugging for DRA
// selectors.
#include <iostream>
#include <map>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "cel/cel.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/manifest_inputs.h"
#include "common/str_cat.h"
#include "operator_tools/cel_match.h"

namespace draplane::cmd {
namespace {

constexpr int kExitValue = 0;
constexpr int kExitCompileError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitEvalError = 3;

struct EvalFlags {
  std::string expression;
  std::string device_file;
  std::string device;
  std::vector<std::string> vars;
  std::string output = "text";
};

struct MatchFlags {
  std::vector<std::string> files;
  bool recursive = false;
  std::string device_class;
  std::string claim;
  std::string output = "table";
};

// Reads and decodes every object of `files`.
absl::StatusOr<std::vector<api::Object>> ReadObjects(
    const std::vector<std::string>& files, bool recursive) {
  auto inputs = ReadManifestInputs(files, recursive, std::cin);
  if (!inputs.ok()) return inputs.status();
  std::vector<api::Object> objects;
  for (const ManifestInput& input : *inputs) {
    auto docs = api::ParseManifests(input.text, input.source);
    if (!docs.ok()) return docs.status();
    for (const api::ManifestDocument& doc : *docs) {
      auto decoded = api::DecodeObject(doc.json);
      if (!decoded.ok()) {
        return absl::InvalidArgumentError(
            StrCat(input.source, ":", doc.line, ": ",
                   std::string(decoded.status().message())));
      }
      objects.push_back(std::move(decoded->object));
    }
  }
  return objects;
}

// Finds the device `name` ("device", "pool/device" or
// "driver/pool/device") in the ResourceSlices of `objects`.
absl::StatusOr<std::pair<std::string, api::Device>> FindDevice(
    const std::vector<api::Object>& objects, const std::string& name) {
  std::vector<std::pair<std::string, const api::Device*>> found;
  std::vector<std::string> all;
  for (const api::Object& o : objects) {
    const auto* s = std::get_if<api::ResourceSlice>(&o.value);
    if (s == nullptr) continue;
    for (const api::Device& d : s->spec.devices) {
      std::string pool_device = StrCat(s->spec.pool.name, "/", d.name);
      std::string full = StrCat(s->spec.driver, "/", pool_device);
      all.push_back(full);
      if (name == d.name || name == pool_device || name == full) {
        found.emplace_back(s->spec.driver, &d);
      }
    }
  }
  if (found.size() == 1)
    return std::make_pair(found[0].first, *found[0].second);
  if (all.empty()) {
    return absl::InvalidArgumentError("no ResourceSlice devices in the file");
  }
  std::string list;
  for (size_t i = 0; i < all.size() && i < 20; ++i) {
    StrAppend(&list, i ? ", " : "", all[i]);
  }
  if (all.size() > 20) StrAppend(&list, ", ...");
  if (found.empty()) {
    return absl::NotFoundError(
        StrCat("device \"", name, "\" not found; devices: ", list));
  }
  return absl::InvalidArgumentError(
      StrCat("device \"", name,
             "\" is ambiguous; name it as driver/pool/device: ", list));
}

void PrintEvaluation(const cel::Evaluation& e, const std::string& output,
                     Streams streams) {
  if (output == "json") {
    api::Json j;
    if (e.error) {
      j["error"] = *e.error;
    } else {
      j["value"] = e.value;
      j["type"] = e.type;
    }
    streams.out << api::DumpJson(j) << "\n";
    return;
  }
  if (e.error) {
    streams.err << "evaluation error: " << *e.error << "\n";
    return;
  }
  streams.out << api::DumpJson(e.value) << " (" << e.type << ")\n";
}

int RunEval(const EvalFlags& flags, Streams streams) {
  bool json = flags.output == "json";
  auto fail = [&](int code, const auto& message) {
    if (json && code != kExitUsage) {
      api::Json j;
      j["error"] = std::string(message);
      streams.out << api::DumpJson(j) << "\n";
    } else {
      streams.err << "error: " << message << "\n";
    }
    return code;
  };
  if (flags.output != "text" && flags.output != "json") {
    return fail(kExitUsage, "--output must be text or json");
  }
  if (flags.device_file.empty() != flags.device.empty()) {
    return fail(kExitUsage, "--device-file and --device go together");
  }
  if (!flags.device_file.empty() && !flags.vars.empty()) {
    return fail(kExitUsage, "use either --device-file/--device or --var");
  }
  const cel::Compiler& compiler = cel::Compiler::Default();
  if (!flags.device_file.empty()) {
    auto objects = ReadObjects({flags.device_file}, false);
    if (!objects.ok()) return fail(kExitUsage, objects.status().message());
    auto device = FindDevice(*objects, flags.device);
    if (!device.ok()) return fail(kExitUsage, device.status().message());
    auto cel_device = cel::Device::Create(device->first, device->second);
    if (!cel_device.ok()) {
      return fail(kExitEvalError, cel_device.status().message());
    }
    auto program = compiler.CompileDeviceExpression(flags.expression);
    if (!program.ok()) {
      return fail(kExitCompileError, program.status().message());
    }
    cel::Evaluation e = (*program)->Evaluate(*cel_device);
    PrintEvaluation(e, flags.output, streams);
    return e.error ? kExitEvalError : kExitValue;
  }
  std::map<std::string, api::Json> vars;
  std::vector<std::string> names;
  for (const std::string& v : flags.vars) {
    size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0) {
      return fail(kExitUsage, StrCat("--var ", v, ": want name=JSON"));
    }
    auto value = api::ParseJsonText(v.substr(eq + 1), "--var");
    if (!value.ok()) {
      return fail(kExitUsage, StrCat("--var ", v.substr(0, eq), ": ",
                                     std::string(value.status().message())));
    }
    names.push_back(v.substr(0, eq));
    vars[v.substr(0, eq)] = *std::move(value);
  }
  auto program = compiler.CompileExpression(flags.expression, names);
  if (!program.ok()) {
    return fail(kExitCompileError, program.status().message());
  }
  cel::Evaluation e = (*program)->Evaluate(vars);
  PrintEvaluation(e, flags.output, streams);
  return e.error ? kExitEvalError : kExitValue;
}

int RunMatch(const MatchFlags& flags, Streams streams) {
  if (flags.output != "table" && flags.output != "json") {
    streams.err << "error: --output must be table or json\n";
    return kExitUsage;
  }
  if (!flags.device_class.empty() && !flags.claim.empty()) {
    streams.err << "error: use either --class or --claim\n";
    return kExitUsage;
  }
  auto objects = ReadObjects(flags.files, flags.recursive);
  if (!objects.ok()) {
    streams.err << "error: " << objects.status().message() << "\n";
    return kExitUsage;
  }
  operator_tools::CelMatchFilter filter{flags.device_class, flags.claim};
  auto reports = operator_tools::RunCelMatch(*objects, filter);
  if (!reports.ok()) {
    streams.err << "error: " << reports.status().message() << "\n";
    return kExitUsage;
  }
  if (flags.output == "json") {
    streams.out << api::DumpJson(operator_tools::CelMatchJson(*reports), 2)
                << "\n";
  } else {
    streams.out << operator_tools::FormatCelMatchTable(*reports);
  }
  // 0 when every selector set matches a device and none errs.
  for (const operator_tools::SelectorReport& r : *reports) {
    if (r.error || r.matched == 0) return 1;
  }
  return 0;
}

}  // namespace

void RegisterCel(CLI::App& app, Streams streams, int* exit_code) {
  CLI::App* cel = AddCommand(
      app, "cel", "Debug CEL device selectors (DeviceClass and ResourceClaim)",
      "");
  cel->require_subcommand(1);

  auto eval_flags = std::make_shared<EvalFlags>();
  CLI::App* eval = AddCommand(
      *cel, "eval",
      "Evaluate a CEL expression in Kubernetes 1.37's CEL environment",
      "Evaluate a CEL expression in Kubernetes 1.37's CEL environment.\n\n"
      "With --device-file/--device the expression sees `device` exactly as a\n"
      "DRA selector does (attributes, capacity, short names in the driver's\n"
      "domain); unlike a selector it may return any type, so you can look at\n"
      "attribute values. With --var name=JSON it sees those variables\n"
      "(JSON integers become int, other numbers double). With neither, it\n"
      "is evaluated in the plain environment with the Kubernetes libraries.\n\n"
      "Prints the value and its CEL type, or with -o json one object:\n"
      "{\"value\": ..., \"type\": ...} or {\"error\": ...}.\n"
      "Exit status: 0 value, 1 compile error, 2 bad usage or input, 3\n"
      "evaluation error.\n\n"
      "Examples:\n"
      "  draplane cel eval \"quantity('80Gi').compareTo(quantity('40Gi'))\"\n"
      "  draplane cel eval --device-file slices.yaml --device gpu-0 \\\n"
      "    \"device.attributes['gpu.nvidia.com'].productName\"");
  eval->add_option("expression", eval_flags->expression, "CEL expression")
      ->required();
  eval->add_option("--device-file", eval_flags->device_file,
                   "File with ResourceSlices (YAML or JSON) to take the "
                   "device from");
  eval->add_option("--device", eval_flags->device,
                   "Device name: NAME, POOL/NAME or DRIVER/POOL/NAME");
  eval->add_option("--var", eval_flags->vars,
                   "Variable as name=JSON; repeatable");
  eval->add_option("-o,--output", eval_flags->output, "text or json")
      ->capture_default_str();
  eval->callback([eval_flags, streams, exit_code] {
    *exit_code = RunEval(*eval_flags, streams);
  });

  auto match_flags = std::make_shared<MatchFlags>();
  CLI::App* match = AddCommand(
      *cel, "match",
      "Show which devices each selector matches, and why one matches none",
      "Show which devices each selector matches, and why one matches none.\n\n"
      "Reads DeviceClasses, ResourceClaims, ResourceClaimTemplates and\n"
      "ResourceSlices from -f, evaluates every DeviceClass selector and every\n"
      "claim request (its class's selectors, then its own, in upstream's\n"
      "order) against every device, and prints match / no match / error per\n"
      "device. For selectors that match nothing it names the attributes they\n"
      "read that no device publishes, with the closest published names and\n"
      "values (draplane's own analysis; upstream has none).\n"
      "Exit status: 0 every selector matches some device, 1 some match none\n"
      "or fail to compile, 2 bad usage or input.\n\n"
      "Example:\n"
      "  kubectl get resourceslices -o yaml > slices.yaml\n"
      "  draplane cel match -f deviceclasses.yaml -f slices.yaml");
  match
      ->add_option("-f,--filename", match_flags->files,
                   "Manifest file, directory or -; repeatable")
      ->required();
  match->add_flag("-R,--recursive", match_flags->recursive,
                  "Descend into subdirectories of directories given with -f");
  match->add_option("--class", match_flags->device_class,
                    "Only this DeviceClass");
  match->add_option("--claim", match_flags->claim,
                    "Only this ResourceClaim or ResourceClaimTemplate "
                    "(NAMESPACE/NAME)");
  match->add_option("-o,--output", match_flags->output, "table or json")
      ->capture_default_str();
  match->callback([match_flags, streams, exit_code] {
    *exit_code = RunMatch(*match_flags, streams);
  });
}

}  // namespace draplane::cmd
