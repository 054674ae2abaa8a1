// `draplane convert`: rewrites resource.k8s.io objects into another API
// version (v1, v1beta2, v1beta1), losslessly for the fields each has.
#include <iostream>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/manifest_inputs.h"
#include "common/str_cat.h"

namespace draplane::cmd {
namespace {

struct ConvertFlags {
  std::vector<std::string> files;
  std::string to;
  std::string output = "yaml";
};

int RunConvert(const ConvertFlags& flags, Streams streams) {
  auto inputs = ReadManifestInputs(flags.files, false, std::cin);
  if (!inputs.ok()) {
    streams.err << "error: " << inputs.status().message() << "\n";
    return 2;
  }
  std::vector<api::Json> converted;
  for (const ManifestInput& input : *inputs) {
    auto docs = api::ParseManifests(input.text, input.source);
    if (!docs.ok()) {
      streams.err << "error: " << docs.status().message() << "\n";
      return 2;
    }
    for (const api::ManifestDocument& doc : *docs) {
      auto decoded = api::DecodeObject(doc.json);
      if (!decoded.ok()) {
        streams.err << "error: " << input.source << ":" << doc.line << ": "
                    << decoded.status().message() << "\n";
        return 1;
      }
      const api::Object& object = decoded->object;
      auto [group, version] = api::SplitApiVersion(object.type.api_version);
      std::string target = object.type.api_version;
      if (group == api::kGroupName) {
        target = StrCat(api::kGroupName, "/", flags.to);
      }
      auto encoded = api::EncodeObject(object, target);
      if (!encoded.ok()) {
        streams.err << "error: " << object.DisplayName() << ": "
                    << encoded.status().message() << "\n";
        return 1;
      }
      converted.push_back(*std::move(encoded));
    }
  }
  if (flags.output == "json") {
    for (const api::Json& j : converted)
      streams.out << api::DumpJson(j, 2) << "\n";
  } else {
    streams.out << api::ToYamlStream(converted);
  }
  return 0;
}

}  // namespace

void RegisterConvert(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<ConvertFlags>();
  CLI::App* cmd = AddCommand(
      app, "convert", "Convert resource.k8s.io objects to another API version",
      "Convert resource.k8s.io objects (DeviceClass, ResourceClaim,\n"
      "ResourceClaimTemplate, ResourceSlice, DeviceTaintRule) to another API\n"
      "version. Objects of other groups are printed unchanged. Unknown fields\n"
      "of resource.k8s.io objects are dropped, as the API server drops "
      "them.\n\n"
      "Example:\n"
      "  draplane convert --to v1 -f "
      "examples/standalone/guide-corrected/02-deviceclasses.yaml");
  cmd->add_option("-f,--filename", flags->files,
                  "Manifest file, directory or - for standard input")
      ->required();
  cmd->add_option("--to", flags->to, "Target version")
      ->required()
      ->check(CLI::IsMember({"v1", "v1beta2", "v1beta1"}));
  cmd->add_option("-o,--output", flags->output, "Output format")
      ->check(CLI::IsMember({"yaml", "json"}));
  cmd->callback([flags, streams, exit_code] {
    *exit_code = RunConvert(*flags, streams);
  });
}

}  // namespace draplane::cmd
