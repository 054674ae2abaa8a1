// `draplane validate`: checks manifests the way the Kubernetes API server
// would on create (strict decoding, defaulting, validation), without a
// server.
#include <iostream>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "api/validation/validation.h"
#include "cel/cel.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/manifest_inputs.h"
#include "common/str_cat.h"

namespace draplane::cmd {
namespace {

struct ValidateFlags {
  std::vector<std::string> files;
  bool recursive = false;
  std::string default_namespace = "default";
};

constexpr int kExitValid = 0;
constexpr int kExitInvalid = 1;
constexpr int kExitUnreadable = 2;

int RunValidate(const ValidateFlags& flags, Streams streams) {
  auto inputs = ReadManifestInputs(flags.files, flags.recursive, std::cin);
  if (!inputs.ok()) {
    streams.err << "error: " << inputs.status().message() << "\n";
    return kExitUnreadable;
  }
  api::ValidationOptions options;
  options.compile_cel = [](std::string_view expression) {
    return cel::Compiler::Default()
        .CompileSelector(expression, /*for_validation=*/true)
        .status();
  };
  int valid = 0, invalid = 0, skipped = 0;
  bool unreadable = false;
  for (const ManifestInput& input : *inputs) {
    auto docs = api::ParseManifests(input.text, input.source);
    if (!docs.ok()) {
      streams.out << "ERROR   " << docs.status().message() << "\n";
      unreadable = true;
      continue;
    }
    for (const api::ManifestDocument& doc : *docs) {
      std::string where = StrCat(input.source, ":", doc.line);
      auto decoded = api::DecodeObject(doc.json);
      if (!decoded.ok()) {
        streams.out << "INVALID " << where << "\n  "
                    << decoded.status().message() << "\n";
        ++invalid;
        continue;
      }
      api::Object object = std::move(decoded->object);
      if (std::holds_alternative<api::UnstructuredObject>(object.value)) {
        streams.out << "SKIPPED " << object.DisplayName() << " (" << where
                    << "): kind " << object.type.api_version << "/"
                    << object.kind() << " is not served by draplane\n";
        ++skipped;
        continue;
      }
      // kubectl fills in the namespace of its context for namespaced
      // objects that name none; validate against "default" likewise.
      const api::KindInfo* info = api::FindKind(
          api::SplitApiVersion(object.type.api_version).first, object.kind());
      if (info != nullptr && info->namespaced &&
          object.metadata()->namespace_.empty()) {
        object.mutable_metadata()->namespace_ = flags.default_namespace;
      }
      api::SetDefaults(object);
      FieldErrorList errors = api::ValidateObject(object, options);
      api::NormalizeErrorPaths(object.kind(), object.type.api_version, errors);
      if (decoded->unknown_fields.empty() && errors.empty()) {
        streams.out << "OK      " << object.DisplayName() << " (" << where
                    << ")\n";
        ++valid;
        continue;
      }
      ++invalid;
      streams.out << "INVALID " << object.DisplayName() << " (" << where
                  << ")\n";
      for (const FieldError& e : decoded->unknown_fields) {
        streams.out << "  strict decoding error: unknown field \"" << e.field
                    << "\"\n";
      }
      for (const FieldError& e : errors) {
        streams.out << "  " << e.ToString() << "\n";
      }
    }
  }
  streams.out << valid + invalid + skipped << " objects: " << valid
              << " valid, " << invalid << " invalid";
  if (skipped > 0) streams.out << ", " << skipped << " skipped";
  streams.out << "\n";
  if (unreadable) return kExitUnreadable;
  return invalid > 0 ? kExitInvalid : kExitValid;
}

}  // namespace

void RegisterValidate(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = AddCommand(
      app, "validate",
      "Validate manifests as the Kubernetes API server would on create",
      "Validate manifests as the Kubernetes API server would on create:\n"
      "strict decoding (unknown fields are errors, like kubectl's default\n"
      "--validate=strict), upstream defaulting, and resource.k8s.io\n"
      "validation with Kubernetes-style field paths.\n\n"
      "Errors of objects written as resource.k8s.io/v1beta1 name fields in\n"
      "v1beta1 shape (spec.devices.requests[0].count, not ...exactly.count),\n"
      "unlike the API server, which reports v1 paths. Namespaced objects\n"
      "without a namespace are checked in --namespace, as kubectl would.\n\n"
      "Prints `OK kind/name` per valid object and each error of an invalid\n"
      "one. Exit status: 0 all valid, 1 any invalid, 2 unreadable input.\n\n"
      "Example:\n"
      "  draplane validate -f examples/standalone/guide-corrected/\n"
      "  kubectl get resourceclaims -A -o yaml | draplane validate -f -");
  cmd->add_option("-f,--filename", flags->files,
                  "Manifest file, directory (*.yaml, *.yml, *.json) or - for "
                  "standard input; repeatable")
      ->required();
  cmd->add_option("-n,--namespace", flags->default_namespace,
                  "Namespace assumed for namespaced objects that name none "
                  "(as kubectl's context namespace)")
      ->capture_default_str();
  cmd->add_flag("-R,--recursive", flags->recursive,
                "Descend into subdirectories of directories given with -f");
  cmd->callback([flags, streams, exit_code] {
    *exit_code = RunValidate(*flags, streams);
  });
}

}  // namespace draplane::cmd
