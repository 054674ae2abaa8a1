#include "apiserver/service_account_keys.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "api/meta_types.h"
#include "auth/service_account_token.h"
#include "common/private_files.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::apiserver {
namespace {

namespace fs = std::filesystem;
using api::Json;

constexpr char kSigningKey[] = "sa.key";
constexpr char kRetired[] = "sa-retired.json";

fs::path ExpiryFile(const fs::path& dir, const std::string& key_id) {
  return dir / StrCat("sa-", key_id, ".expiry");
}

// The recorded expiry of the key's tokens; InfinitePast without one.
absl::Time RecordedExpiry(const fs::path& dir, const std::string& key_id) {
  auto text = ReadPrivateFile(ExpiryFile(dir, key_id));
  int64_t seconds = 0;
  if (!text.ok() ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &seconds)) {
    return absl::InfinitePast();
  }
  return absl::FromUnixSeconds(seconds);
}

struct RetiredKey {
  std::string public_key_pem;
  std::string key_id;
  absl::Time valid_until;
};

absl::StatusOr<std::vector<RetiredKey>> ReadRetired(const fs::path& dir) {
  std::vector<RetiredKey> out;
  auto text = ReadPrivateFile(dir / kRetired);
  if (!text.ok()) return out;  // none retired yet
  Json json = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_array()) {
    return absl::DataLossError(
        StrCat((dir / kRetired).string(), " is not a JSON array"));
  }
  for (const Json& entry : json) {
    if (!entry.is_object() || !entry.contains("publicKey") ||
        !entry["publicKey"].is_string() || !entry.contains("validUntil") ||
        !entry["validUntil"].is_number_integer()) {
      return absl::DataLossError(StrCat(
          (dir / kRetired).string(),
          ": every entry needs publicKey (PEM) and validUntil (Unix seconds)"));
    }
    RetiredKey key;
    key.public_key_pem = entry["publicKey"].get<std::string>();
    auto id = auth::KeyId(key.public_key_pem);
    if (!id.ok()) return id.status();
    key.key_id = *std::move(id);
    key.valid_until = absl::FromUnixSeconds(entry["validUntil"].get<int64_t>());
    out.push_back(std::move(key));
  }
  return out;
}

absl::Status WriteRetired(const fs::path& dir,
                          const std::vector<RetiredKey>& keys) {
  Json json = Json::array();
  for (const RetiredKey& key : keys) {
    json.push_back({{"publicKey", key.public_key_pem},
                    {"validUntil", absl::ToUnixSeconds(key.valid_until)}});
  }
  return WritePrivateFile(dir / kRetired, json.dump(2) + "\n");
}

absl::StatusOr<std::string> NewSigningKey(const fs::path& dir) {
  auto key = auth::NewServiceAccountSigningKey();
  if (!key.ok()) return key.status();
  if (absl::Status s = WritePrivateFile(dir / kSigningKey, *key); !s.ok()) {
    return s;
  }
  return key;
}

}  // namespace

absl::StatusOr<ServiceAccountKeys> LoadOrCreateServiceAccountKeys(
    const std::string& dir, absl::Time now) {
  const fs::path base(dir);
  if (absl::Status s = CreatePrivateDirectories(base); !s.ok()) return s;
  std::error_code ec;
  ServiceAccountKeys out;
  auto key = ReadPrivateFile(base / kSigningKey);
  if (!key.ok()) key = NewSigningKey(base);
  if (!key.ok()) return key.status();
  out.signing_key_pem = *std::move(key);
  auto public_key = auth::PublicKeyOf(out.signing_key_pem);
  if (!public_key.ok()) {
    return absl::InvalidArgumentError(StrCat(
        (base / kSigningKey).string(), ": ", public_key.status().message()));
  }
  auto id = auth::KeyId(*public_key);
  if (!id.ok()) return id.status();
  out.key_id = *std::move(id);

  auto retired = ReadRetired(base);
  if (!retired.ok()) return retired.status();
  std::vector<RetiredKey> kept;
  for (RetiredKey& r : *retired) {
    // Tokens a server signed after the rotation, before it restarted.
    r.valid_until = std::max(r.valid_until, RecordedExpiry(base, r.key_id));
    if (r.valid_until <= now) {
      fs::remove(ExpiryFile(base, r.key_id), ec);
      continue;
    }
    out.retired_public_key_pems.push_back(r.public_key_pem);
    kept.push_back(std::move(r));
  }
  if (kept.size() != retired->size()) {
    if (absl::Status s = WriteRetired(base, kept); !s.ok()) return s;
  }
  return out;
}

absl::Status RotateServiceAccountKey(const std::string& dir, absl::Time now) {
  const fs::path base(dir);
  auto key = ReadPrivateFile(base / kSigningKey);
  if (!key.ok()) {
    return absl::FailedPreconditionError(StrCat(
        "no ServiceAccount signing key at ", (base / kSigningKey).string()));
  }
  auto public_key = auth::PublicKeyOf(*key);
  if (!public_key.ok()) return public_key.status();
  auto id = auth::KeyId(*public_key);
  if (!id.ok()) return id.status();
  auto retired = ReadRetired(base);
  if (!retired.ok()) return retired.status();
  retired->push_back(
      RetiredKey{*public_key, *id, std::max(now, RecordedExpiry(base, *id))});
  // The retired list first: a crash between the two writes leaves the old
  // key signing and also listed, which is harmless.
  if (absl::Status s = WriteRetired(base, *retired); !s.ok()) return s;
  auto fresh = NewSigningKey(base);
  return fresh.ok() ? absl::OkStatus() : fresh.status();
}

ServiceAccountExpiryLog::ServiceAccountExpiryLog(const std::string& dir,
                                                 const std::string& key_id)
    : path_(ExpiryFile(dir, key_id).string()) {
  absl::MutexLock lock(&mu_);
  recorded_ = RecordedExpiry(dir, key_id);
}

void ServiceAccountExpiryLog::Record(absl::Time expiry) {
  absl::MutexLock lock(&mu_);
  if (expiry <= recorded_) return;
  // An hour ahead, so that the next hour of tokens needs no write.
  const absl::Time next = expiry + absl::Hours(1);
  if (absl::Status s =
          WritePrivateFile(path_, StrCat(absl::ToUnixSeconds(next), "\n"));
      !s.ok()) {
    logging::Error("Unable to record the expiry of ServiceAccount tokens",
                   {{"err", s}});
    return;
  }
  recorded_ = next;
}

}  // namespace draplane::apiserver
