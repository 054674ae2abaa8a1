// Arbitrary bytes as manifests for `draplane migrate`: the documents are
// split, parsed, planned, edited as text and checked by reading back.
// Invariants: no crash, sanitizer report, hang or exception; what migrate
// writes parses as manifests; migrating it again changes nothing (with
// the output's templates indexed, as the command does).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "api/manifest.h"
#include "migrate/migrate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane;
  if (size > 64 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  migrate::Migrator first(migrate::MigrateOptions{});
  if (!first.IndexTemplates(text, "fuzz").ok()) return 0;
  absl::StatusOr<migrate::FileResult> once = first.Migrate(text, "fuzz");
  if (!once.ok() || once->converted == 0) return 0;
  if (!api::ParseManifests(once->text, "out").ok()) {
    std::fprintf(stderr, "migrated text does not parse:\n%s\n",
                 once->text.c_str());
    std::abort();
  }
  migrate::Migrator second(migrate::MigrateOptions{});
  if (!second.IndexTemplates(once->text, "out").ok()) std::abort();
  absl::StatusOr<migrate::FileResult> twice = second.Migrate(once->text, "out");
  if (!twice.ok() || twice->text != once->text) {
    std::fprintf(stderr, "not idempotent:\n%s\n---- became\n%s\n",
                 once->text.c_str(),
                 twice.ok() ? twice->text.c_str() : "(an error)");
    std::abort();
  }
  return 0;
}
