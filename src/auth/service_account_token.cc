#include "auth/service_account_token.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "common/json_type_name.h"
#include "common/str_cat.h"
#include "nlohmann/json.hpp"

namespace draplane::auth {
namespace service_account_token_internal {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// A parsed RSA or ECDSA key (private for a signer, public for a verifier)
// with what upstream derives from it.
struct Key {
  PkeyPtr pkey;
  bool is_rsa = false;
  std::string kid;  // keyIDFromPublicKey
  std::string alg;  // algorithmFromPublicKey
  // The key's JWK as JSON text, members in go-jose's rawJSONWebKey order.
  std::string jwk;
};

}  // namespace service_account_token_internal

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;
using service_account_token_internal::Key;
using service_account_token_internal::PkeyPtr;

// Beyond upstream, which reads any length: a bound on untrusted input.
constexpr size_t kMaxTokenBytes = 64 * 1024;
constexpr absl::Duration kLeeway = absl::Minutes(1);  // go-jose DefaultLeeway
constexpr char kCryptoFailure[] =
    "go-jose/go-jose: error in cryptographic primitive";

struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
struct BnFree {
  void operator()(BIGNUM* p) const { BN_free(p); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct EcdsaSigFree {
  void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
};
struct OpensslFree {
  void operator()(void* p) const { OPENSSL_free(p); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using BnPtr = std::unique_ptr<BIGNUM, BnFree>;

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// RFC 4648 base64url without padding (Go's base64.RawURLEncoding).
std::string Base64UrlEncode(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((in.size() * 4 + 2) / 3);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v = (uint32_t{Bytes(in)[i]} << 16) |
                 (uint32_t{Bytes(in)[i + 1]} << 8) | Bytes(in)[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const size_t rest = in.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t{Bytes(in)[i]} << 16;
    if (rest == 2) v |= uint32_t{Bytes(in)[i + 1]} << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    if (rest == 2) out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

// Go's base64.RawURLEncoding.DecodeString: no padding, '\r' and '\n'
// ignored, a final group of one character refused.
std::optional<std::string> Base64UrlDecode(std::string_view in) {
  std::string out;
  out.reserve(in.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '-') {
      v = 62;
    } else if (c == '_') {
      v = 63;
    } else if (c == '\r' || c == '\n') {
      continue;
    } else {
      return std::nullopt;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (bits >= 6) return std::nullopt;  // one character in the last group
  return out;
}

// JSON text as Go's encoding/json writes it: no spaces, invalid UTF-8 as
// U+FFFD, and <, >, &, U+2028, U+2029 escaped (Go's HTML-safe default).
template <class J>
std::string GoJsonText(const J& j) {
  const std::string raw = j.dump(-1, ' ', false, J::error_handler_t::replace);
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < raw.size() && raw[i + 1] == '\x80' &&
               (raw[i + 2] == '\xA8' || raw[i + 2] == '\xA9')) {
      out += raw[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// Go's %q of a []string: ["a" "b"].
std::string GoQuoteList(const std::vector<std::string>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out += ' ';
    out += '"';
    for (char c : list[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "]";
}

// --- Keys ---

std::string BignumBytes(const EVP_PKEY* pkey, const char* param, int pad) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, param, &raw) != 1) return "";
  BnPtr bn(raw);
  const int size = pad > 0 ? pad : BN_num_bytes(bn.get());
  std::string out(static_cast<size_t>(size), '\0');
  if (BN_bn2binpad(bn.get(), reinterpret_cast<unsigned char*>(out.data()),
                   size) != size) {
    return "";
  }
  return out;
}

// The PKIX DER of the public half of `pkey`; empty on failure.
std::string PublicKeyDer(const EVP_PKEY* pkey) {
  unsigned char* der = nullptr;
  const int len = i2d_PUBKEY(pkey, &der);
  if (len <= 0) return "";
  std::unique_ptr<unsigned char, OpensslFree> owned(der);
  return std::string(reinterpret_cast<const char*>(der),
                     static_cast<size_t>(len));
}

// Completes a Key for `pkey`: RSA, or ECDSA on P-256/P-384/P-521 as
// upstream's algorithmFromPublicKey; InvalidArgument for other keys.
absl::StatusOr<std::shared_ptr<const Key>> MakeKey(PkeyPtr pkey) {
  auto key = std::make_shared<Key>();
  int coordinate_bytes = 0;
  std::string crv;
  if (EVP_PKEY_get_base_id(pkey.get()) == EVP_PKEY_RSA) {
    key->is_rsa = true;
    key->alg = "RS256";
  } else if (EVP_PKEY_get_base_id(pkey.get()) == EVP_PKEY_EC) {
    std::array<char, 64> group{};
    size_t len = 0;
    if (EVP_PKEY_get_group_name(pkey.get(), group.data(), group.size(), &len) !=
        1) {
      return absl::InvalidArgumentError("ECDSA key without a named curve");
    }
    struct Curve {
      std::string_view group, alg, crv;
      int coordinate_bytes;
    };
    static constexpr Curve kCurves[] = {
        {"prime256v1", "ES256", "P-256", 32},
        {"secp384r1", "ES384", "P-384", 48},
        {"secp521r1", "ES512", "P-521", 66},
    };
    const std::string_view name(group.data(), len);
    for (const Curve& curve : kCurves) {
      if (curve.group != name) continue;
      key->alg = curve.alg;
      crv = curve.crv;
      coordinate_bytes = curve.coordinate_bytes;
    }
    if (key->alg.empty()) {
      return absl::InvalidArgumentError(
          "unknown private key curve, must be 256, 384, or 521");
    }
  } else {
    return absl::InvalidArgumentError(
        "unknown public key type, must be RSA or ECDSA");
  }
  const std::string der = PublicKeyDer(pkey.get());
  if (der.empty()) {
    return absl::InvalidArgumentError(
        "failed to serialize public key to DER format");
  }
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(Bytes(der), der.size(), digest.data());
  key->kid = Base64UrlEncode(std::string_view(
      reinterpret_cast<const char*>(digest.data()), digest.size()));
  OrderedJson jwk;
  jwk["use"] = "sig";
  jwk["kty"] = key->is_rsa ? "RSA" : "EC";
  jwk["kid"] = key->kid;
  if (!key->is_rsa) jwk["crv"] = crv;
  jwk["alg"] = key->alg;
  if (key->is_rsa) {
    jwk["n"] =
        Base64UrlEncode(BignumBytes(pkey.get(), OSSL_PKEY_PARAM_RSA_N, 0));
    jwk["e"] =
        Base64UrlEncode(BignumBytes(pkey.get(), OSSL_PKEY_PARAM_RSA_E, 0));
  } else {
    jwk["x"] = Base64UrlEncode(
        BignumBytes(pkey.get(), OSSL_PKEY_PARAM_EC_PUB_X, coordinate_bytes));
    jwk["y"] = Base64UrlEncode(
        BignumBytes(pkey.get(), OSSL_PKEY_PARAM_EC_PUB_Y, coordinate_bytes));
  }
  key->jwk = GoJsonText(jwk);
  key->pkey = std::move(pkey);
  return key;
}

// The key in one PEM block named `type`, or null for a type that holds no
// key we read.
PkeyPtr KeyOfPemBlock(std::string_view type, const unsigned char* der,
                      long len) {
  const unsigned char* p = der;
  if (type == "PUBLIC KEY") return PkeyPtr(d2i_PUBKEY(nullptr, &p, len));
  if (type == "RSA PUBLIC KEY") {
    return PkeyPtr(d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, len));
  }
  if (type == "PRIVATE KEY" || type == "RSA PRIVATE KEY" ||
      type == "EC PRIVATE KEY") {
    return PkeyPtr(d2i_AutoPrivateKey(nullptr, &p, len));
  }
  if (type == "CERTIFICATE") {
    std::unique_ptr<X509, X509Free> cert(d2i_X509(nullptr, &p, len));
    if (cert == nullptr) return nullptr;
    return PkeyPtr(X509_get_pubkey(cert.get()));
  }
  return nullptr;
}

// The RSA and ECDSA keys in the PEM blocks of `pem`; with `only_private`,
// only private keys. Blocks holding other things are skipped.
std::vector<std::shared_ptr<const Key>> KeysOfPem(std::string_view pem,
                                                  bool only_private) {
  std::vector<std::shared_ptr<const Key>> keys;
  if (pem.size() > static_cast<size_t>(INT32_MAX)) return keys;
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) return keys;
  while (true) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &len) != 1) break;
    std::unique_ptr<char, OpensslFree> name_owner(name);
    std::unique_ptr<char, OpensslFree> header_owner(header);
    std::unique_ptr<unsigned char, OpensslFree> data_owner(data);
    const std::string_view type(name);
    if (only_private && type.find("PRIVATE KEY") == std::string_view::npos) {
      continue;
    }
    PkeyPtr pkey = KeyOfPemBlock(type, data, len);
    if (pkey == nullptr) continue;
    absl::StatusOr<std::shared_ptr<const Key>> key = MakeKey(std::move(pkey));
    if (key.ok()) keys.push_back(*std::move(key));
  }
  ERR_clear_error();  // PEM_read_bio's end-of-input, failed block parses
  return keys;
}

// --- Signatures ---

struct Algorithm {
  std::string_view name;
  const EVP_MD* (*digest)();
  bool rsa;
  bool pss;
  int ec_coordinate_bytes;
};

// go-jose's verifiers: RS*/PS* for RSA keys, ES* for ECDSA keys (of any
// curve: go-jose checks only the signature's size).
const Algorithm* FindAlgorithm(std::string_view name) {
  static const Algorithm kAlgorithms[] = {
      {"RS256", EVP_sha256, true, false, 0},
      {"RS384", EVP_sha384, true, false, 0},
      {"RS512", EVP_sha512, true, false, 0},
      {"PS256", EVP_sha256, true, true, 0},
      {"PS384", EVP_sha384, true, true, 0},
      {"PS512", EVP_sha512, true, true, 0},
      {"ES256", EVP_sha256, false, false, 32},
      {"ES384", EVP_sha384, false, false, 48},
      {"ES512", EVP_sha512, false, false, 66},
  };
  for (const Algorithm& a : kAlgorithms) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

absl::StatusOr<std::string> SignBytes(const Key& key, std::string_view input) {
  const Algorithm* alg = FindAlgorithm(key.alg);
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  size_t len = 0;
  if (alg == nullptr || ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, alg->digest(), nullptr,
                         key.pkey.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, Bytes(input), input.size()) !=
          1) {
    ERR_clear_error();
    return absl::InternalError("failed to sign the token");
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()),
                     &len, Bytes(input), input.size()) != 1) {
    ERR_clear_error();
    return absl::InternalError("failed to sign the token");
  }
  sig.resize(len);
  if (alg->rsa) return sig;
  // JWS ECDSA signatures are R || S, each of the curve's size.
  const unsigned char* p = Bytes(sig);
  std::unique_ptr<ECDSA_SIG, EcdsaSigFree> ecdsa(
      d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size())));
  const int size = alg->ec_coordinate_bytes;
  std::string raw(static_cast<size_t>(2 * size), '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  if (ecdsa == nullptr ||
      BN_bn2binpad(ECDSA_SIG_get0_r(ecdsa.get()), out, size) != size ||
      BN_bn2binpad(ECDSA_SIG_get0_s(ecdsa.get()), out + size, size) != size) {
    ERR_clear_error();
    return absl::InternalError("failed to sign the token");
  }
  return raw;
}

// The DER of the JWS ECDSA signature `raw` (R || S); empty when `raw` is
// not 2 * `size` bytes.
std::string EcdsaDer(std::string_view raw, int size) {
  if (raw.size() != 2 * static_cast<size_t>(size)) return "";
  std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(ECDSA_SIG_new());
  BnPtr r(BN_bin2bn(Bytes(raw), size, nullptr));
  BnPtr s(BN_bin2bn(Bytes(raw) + size, size, nullptr));
  if (sig == nullptr || r == nullptr || s == nullptr ||
      ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) {
    return "";
  }
  (void)r.release();  // owned by sig now
  (void)s.release();
  unsigned char* der = nullptr;
  const int len = i2d_ECDSA_SIG(sig.get(), &der);
  if (len <= 0) return "";
  std::unique_ptr<unsigned char, OpensslFree> owned(der);
  return std::string(reinterpret_cast<const char*>(der),
                     static_cast<size_t>(len));
}

bool VerifyBytes(const Key& key, std::string_view alg_name,
                 std::string_view input, std::string_view sig) {
  const Algorithm* alg = FindAlgorithm(alg_name);
  if (alg == nullptr || alg->rsa != key.is_rsa) return false;
  std::string der;
  if (!alg->rsa) {
    der = EcdsaDer(sig, alg->ec_coordinate_bytes);
    if (der.empty()) return false;
    sig = der;
  }
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  bool ok =
      ctx != nullptr && EVP_DigestVerifyInit(ctx.get(), &pctx, alg->digest(),
                                             nullptr, key.pkey.get()) == 1;
  if (ok && alg->pss) {
    // Go's rsa.VerifyPSS with nil options: salt length detected.
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) == 1;
  }
  ok = ok && EVP_DigestVerify(ctx.get(), Bytes(sig), sig.size(), Bytes(input),
                              input.size()) == 1;
  ERR_clear_error();
  return ok;
}

// --- Claims ---

Json RefJson(const TokenObjectRef& ref) {
  Json j = Json::object();  // Go's ref: both members omitempty
  if (!ref.name.empty()) j["name"] = ref.name;
  if (!ref.uid.empty()) j["uid"] = ref.uid;
  return j;
}

// The payload as upstream's GenerateToken merges jwt.Claims and its
// privateClaims (omitempty members left out).
Json ClaimsJson(const ServiceAccountClaims& c) {
  Json payload = Json::object();
  if (!c.issuer.empty()) payload["iss"] = c.issuer;
  payload["sub"] = StrCat("system:serviceaccount:", c.namespace_, ":",
                          c.service_account.name);
  if (!c.audiences.empty()) payload["aud"] = c.audiences;
  if (c.expiry != absl::InfiniteFuture() && c.expiry != absl::InfinitePast()) {
    payload["exp"] = absl::ToUnixSeconds(c.expiry);
  }
  if (c.not_before != absl::InfinitePast() &&
      c.not_before != absl::InfiniteFuture()) {
    payload["nbf"] = absl::ToUnixSeconds(c.not_before);
  }
  if (c.issued_at != absl::InfinitePast() &&
      c.issued_at != absl::InfiniteFuture()) {
    payload["iat"] = absl::ToUnixSeconds(c.issued_at);
  }
  if (!c.id.empty()) payload["jti"] = c.id;
  Json k8s = Json::object();
  if (!c.namespace_.empty()) k8s["namespace"] = c.namespace_;
  k8s["serviceaccount"] = RefJson(c.service_account);
  if (c.pod) k8s["pod"] = RefJson(*c.pod);
  if (c.secret) k8s["secret"] = RefJson(*c.secret);
  if (c.node) k8s["node"] = RefJson(*c.node);
  if (c.warn_after) k8s["warnafter"] = absl::ToUnixSeconds(*c.warn_after);
  payload["kubernetes.io"] = std::move(k8s);
  return payload;
}

// Go's UnmarshalTypeError text.
absl::Status TypeError(const Json& value, std::string_view go_struct,
                       std::string_view path, std::string_view go_type) {
  return absl::UnauthenticatedError(StrCat(
      "json: cannot unmarshal ", JsonTypeName(value), " into Go struct field ",
      go_struct, ".", path, " of type ", go_type));
}

// Reads the string member `name` of `obj` into `out`; absent and null
// leave `out` as is (Go's encoding/json).
absl::Status ReadString(const Json& obj, const char* name,
                        std::string_view go_struct, std::string_view path,
                        std::string& out) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_string()) return TypeError(*it, go_struct, path, "string");
  out = it->get<std::string>();
  return absl::OkStatus();
}

// go-jose's NumericDate: any JSON number, truncated to whole seconds.
absl::Status ReadNumericDate(const Json& obj, const char* name,
                             std::optional<absl::Time>& out) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_number()) {
    return absl::UnauthenticatedError(
        "go-jose/go-jose/jwt: expected number value to unmarshal "
        "NumericDate");
  }
  const double f = it->get<double>();
  if (!std::isfinite(f)) {
    return absl::UnauthenticatedError(
        "go-jose/go-jose/jwt: expected number value to unmarshal "
        "NumericDate");
  }
  // Go's int64(f) on amd64: out of range gives the minimum int64.
  int64_t seconds = INT64_MIN;
  if (f > -9.2233720368547758e18 && f < 9.2233720368547758e18) {
    seconds = static_cast<int64_t>(f);
  }
  out = absl::FromUnixSeconds(seconds);
  return absl::OkStatus();
}

absl::Status ReadRef(const Json& obj, const char* name, std::string_view path,
                     std::optional<TokenObjectRef>& out) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_object()) {
    return TypeError(*it, "kubernetes", path, "serviceaccount.ref");
  }
  TokenObjectRef ref;
  absl::Status s =
      ReadString(*it, "name", "ref", StrCat(path, ".name"), ref.name);
  if (s.ok()) s = ReadString(*it, "uid", "ref", StrCat(path, ".uid"), ref.uid);
  if (!s.ok()) return s;
  out = std::move(ref);
  return absl::OkStatus();
}

absl::Status ReadPrivateClaims(const Json& payload, ServiceAccountClaims& c) {
  auto it = payload.find("kubernetes.io");
  if (it == payload.end() || it->is_null()) return absl::OkStatus();
  const Json& k8s = *it;
  if (!k8s.is_object()) {
    return TypeError(k8s, "privateClaims", "kubernetes.io",
                     "serviceaccount.kubernetes");
  }
  absl::Status s = ReadString(k8s, "namespace", "kubernetes",
                              "kubernetes.io.namespace", c.namespace_);
  std::optional<TokenObjectRef> sa;
  if (s.ok())
    s = ReadRef(k8s, "serviceaccount", "kubernetes.io.serviceaccount", sa);
  if (s.ok() && sa) c.service_account = *std::move(sa);
  if (s.ok()) s = ReadRef(k8s, "pod", "kubernetes.io.pod", c.pod);
  if (s.ok()) s = ReadRef(k8s, "secret", "kubernetes.io.secret", c.secret);
  if (s.ok()) s = ReadRef(k8s, "node", "kubernetes.io.node", c.node);
  if (s.ok()) s = ReadNumericDate(k8s, "warnafter", c.warn_after);
  // Upstream ignores a warnafter of 0.
  if (c.warn_after == absl::UnixEpoch()) c.warn_after.reset();
  return s;
}

// The claims of a payload (a JSON object), as go-jose's tok.Claims reads
// jwt.Claims and upstream's privateClaims: Go's encoding/json rules.
absl::StatusOr<ServiceAccountClaims> ReadClaims(const Json& payload) {
  ServiceAccountClaims c;
  std::string subject;
  absl::Status s = ReadString(payload, "iss", "Claims", "iss", c.issuer);
  if (s.ok()) s = ReadString(payload, "sub", "Claims", "sub", subject);
  if (auto it = payload.find("aud"); s.ok() && it != payload.end()) {
    if (it->is_string()) {
      c.audiences = {it->get<std::string>()};
    } else if (it->is_array() &&
               std::all_of(it->begin(), it->end(),
                           [](const Json& a) { return a.is_string(); })) {
      for (const Json& a : *it) c.audiences.push_back(a.get<std::string>());
    } else {
      s = absl::UnauthenticatedError(
          "go-jose/go-jose/jwt: expected string or array value to "
          "unmarshal to Audience");
    }
  }
  std::optional<absl::Time> exp, nbf, iat;
  if (s.ok()) s = ReadNumericDate(payload, "exp", exp);
  if (s.ok()) s = ReadNumericDate(payload, "nbf", nbf);
  if (s.ok()) s = ReadNumericDate(payload, "iat", iat);
  if (s.ok()) s = ReadString(payload, "jti", "Claims", "jti", c.id);
  if (s.ok()) s = ReadPrivateClaims(payload, c);
  if (!s.ok()) return s;
  c.expiry = exp.value_or(absl::InfiniteFuture());
  c.not_before = nbf.value_or(absl::InfinitePast());
  c.issued_at = iat.value_or(absl::InfinitePast());
  return c;
}

// go-jose's Claims.Validate with DefaultLeeway, and upstream's texts.
absl::Status ValidateTimes(const ServiceAccountClaims& c, absl::Time now) {
  if (c.not_before != absl::InfinitePast() && now + kLeeway < c.not_before) {
    return absl::UnauthenticatedError("service account token is not valid yet");
  }
  if (c.expiry != absl::InfiniteFuture() && now - kLeeway > c.expiry) {
    return absl::UnauthenticatedError("service account token has expired");
  }
  if (c.issued_at != absl::InfinitePast() && now + kLeeway < c.issued_at) {
    return absl::UnauthenticatedError(
        "service account token is issued in the future");
  }
  return absl::OkStatus();
}

absl::Status NotMine() {
  return absl::NotFoundError("not a service account token of this issuer");
}

bool Contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// A JSON member read as Go reads a string field: absent and null
// read as "", other types fail the parse.
bool StringMember(const Json& obj, const char* name, std::string& out) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

}  // namespace

absl::StatusOr<std::string> NewServiceAccountSigningKey() {
  PkeyPtr pkey(EVP_RSA_gen(2048));
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (pkey == nullptr || bio == nullptr ||
      PEM_write_bio_PrivateKey(bio.get(), pkey.get(), nullptr, nullptr, 0,
                               nullptr, nullptr) != 1) {
    ERR_clear_error();
    return absl::InternalError("failed to generate an RSA key");
  }
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

absl::StatusOr<std::string> PublicKeyOf(std::string_view private_key_pem) {
  std::vector<std::shared_ptr<const Key>> keys =
      KeysOfPem(private_key_pem, /*only_private=*/true);
  if (keys.empty()) {
    return absl::InvalidArgumentError(
        "data does not contain a valid RSA or ECDSA private key");
  }
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr ||
      PEM_write_bio_PUBKEY(bio.get(), keys[0]->pkey.get()) != 1) {
    ERR_clear_error();
    return absl::InternalError("failed to write the public key");
  }
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

absl::StatusOr<std::string> KeyId(std::string_view public_key_pem) {
  std::vector<std::shared_ptr<const Key>> keys =
      KeysOfPem(public_key_pem, /*only_private=*/false);
  if (keys.empty()) {
    return absl::InvalidArgumentError(
        "data does not contain any valid RSA or ECDSA public keys");
  }
  return keys[0]->kid;
}

TokenSigner::TokenSigner(std::shared_ptr<const Key> key)
    : key_(std::move(key)) {}

absl::StatusOr<TokenSigner> TokenSigner::Create(
    std::string_view private_key_pem) {
  std::vector<std::shared_ptr<const Key>> keys =
      KeysOfPem(private_key_pem, /*only_private=*/true);
  if (keys.empty()) {
    return absl::InvalidArgumentError(
        "data does not contain a valid RSA or ECDSA private key");
  }
  return TokenSigner(std::move(keys[0]));
}

const std::string& TokenSigner::key_id() const { return key_->kid; }
const std::string& TokenSigner::algorithm() const { return key_->alg; }

absl::StatusOr<std::string> TokenSigner::Sign(
    const ServiceAccountClaims& claims) const {
  // go-jose's protected header for a JSONWebKey with a KeyID, marshalled
  // from a map: members sorted.
  Json header = {{"alg", key_->alg}, {"kid", key_->kid}};
  std::string input = StrCat(Base64UrlEncode(GoJsonText(header)), ".",
                             Base64UrlEncode(GoJsonText(ClaimsJson(claims))));
  absl::StatusOr<std::string> sig = SignBytes(*key_, input);
  if (!sig.ok()) return sig.status();
  StrAppend(&input, ".", Base64UrlEncode(*sig));
  return input;
}

TokenVerifier::TokenVerifier(std::vector<std::shared_ptr<const Key>> keys,
                             std::vector<std::string> issuers,
                             std::vector<std::string> audiences)
    : keys_(std::move(keys)),
      issuers_(std::move(issuers)),
      audiences_(std::move(audiences)) {}

absl::StatusOr<TokenVerifier> TokenVerifier::Create(
    const std::vector<std::string>& public_key_pems,
    std::vector<std::string> issuers, std::vector<std::string> audiences) {
  std::vector<std::shared_ptr<const Key>> keys;
  for (size_t i = 0; i < public_key_pems.size(); ++i) {
    std::vector<std::shared_ptr<const Key>> more =
        KeysOfPem(public_key_pems[i], /*only_private=*/false);
    if (more.empty()) {
      return absl::InvalidArgumentError(
          StrCat("public key #", i,
                 ": data does not contain any valid RSA or ECDSA public "
                 "keys"));
    }
    keys.insert(keys.end(), more.begin(), more.end());
  }
  if (keys.empty()) {
    return absl::InvalidArgumentError(
        "no public keys to verify service account tokens");
  }
  return TokenVerifier(std::move(keys), std::move(issuers),
                       std::move(audiences));
}

absl::StatusOr<ServiceAccountClaims> TokenVerifier::Verify(
    std::string_view token, absl::Time now) const {
  if (token.size() > kMaxTokenBytes) {
    return absl::UnauthenticatedError("service account token is too large");
  }
  // Upstream's hasCorrectIssuer: reads "iss" before any signature check.
  const size_t first = token.find_first_not_of(" \t\n\v\f\r");
  if (first != std::string_view::npos && token[first] == '{') return NotMine();
  const size_t dot1 = token.find('.');
  const size_t dot2 = dot1 == std::string_view::npos
                          ? std::string_view::npos
                          : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos ||
      token.find('.', dot2 + 1) != std::string_view::npos) {
    return NotMine();
  }
  std::optional<std::string> payload_text =
      Base64UrlDecode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  if (!payload_text) return NotMine();
  const Json payload = Json::parse(*payload_text, nullptr, false);
  std::string issuer;
  if (!payload.is_object() || !StringMember(payload, "iss", issuer) ||
      !Contains(issuers_, issuer)) {
    return NotMine();
  }
  // go-jose's ParseSigned: failures are "not mine" upstream too.
  std::optional<std::string> header_text =
      Base64UrlDecode(token.substr(0, dot1));
  std::optional<std::string> sig = Base64UrlDecode(token.substr(dot2 + 1));
  if (!header_text || !sig) return NotMine();
  const Json header = Json::parse(*header_text, nullptr, false);
  std::string alg, kid;
  if (!header.is_object() || !StringMember(header, "alg", alg) ||
      !StringMember(header, "kid", kid)) {
    return NotMine();
  }
  // The keys with the token's key ID, or all keys when it has none.
  std::vector<const Key*> keys;
  for (const auto& key : keys_) {
    if (kid.empty() || key->kid == kid) keys.push_back(key.get());
  }
  if (keys.empty()) {
    return absl::UnauthenticatedError("invalid signature, no keys found");
  }
  // go-jose refuses critical headers it does not know; this knows none.
  const bool critical = header.contains("crit");
  const std::string_view input = token.substr(0, dot2);
  const bool verified =
      !critical && std::any_of(keys.begin(), keys.end(), [&](const Key* key) {
        return VerifyBytes(*key, alg, input, *sig);
      });
  if (!verified) return absl::UnauthenticatedError(kCryptoFailure);
  absl::StatusOr<ServiceAccountClaims> claims = ReadClaims(payload);
  if (!claims.ok()) return claims.status();
  // Upstream's audience check: a token without audiences is a legacy token
  // for the API server's own audiences.
  std::vector<std::string> token_audiences =
      claims->audiences.empty() ? audiences_ : claims->audiences;
  const bool intersects = std::any_of(
      token_audiences.begin(), token_audiences.end(),
      [&](const std::string& a) { return Contains(audiences_, a); });
  if (!intersects && !audiences_.empty()) {
    return absl::UnauthenticatedError(StrCat(
        "token audiences ", GoQuoteList(token_audiences),
        " is invalid for the target audiences ", GoQuoteList(audiences_)));
  }
  absl::Status times = ValidateTimes(*claims, now);
  if (!times.ok()) return times;
  return claims;
}

std::string TokenVerifier::Jwks() const {
  std::string jwks = R"({"keys":[)";
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (i > 0) jwks += ',';
    jwks += keys_[i]->jwk;
  }
  return jwks + "]}";
}

std::vector<std::string> TokenVerifier::Algorithms() const {
  std::set<std::string> algs;
  for (const auto& key : keys_) algs.insert(key->alg);
  return {algs.begin(), algs.end()};
}

std::string OpenIdConfiguration(std::string_view issuer,
                                std::string_view jwks_uri,
                                const TokenVerifier& verifier) {
  OrderedJson metadata;
  metadata["issuer"] = std::string(issuer);
  metadata["jwks_uri"] = std::string(jwks_uri);
  metadata["response_types_supported"] = {"id_token"};
  metadata["subject_types_supported"] = {"public"};
  metadata["id_token_signing_alg_values_supported"] = verifier.Algorithms();
  return GoJsonText(metadata);
}

UserInfo ServiceAccountUser(const ServiceAccountClaims& claims) {
  UserInfo user;
  user.name = StrCat("system:serviceaccount:", claims.namespace_, ":",
                     claims.service_account.name);
  user.uid = claims.service_account.uid;
  user.groups = {"system:serviceaccounts",
                 StrCat("system:serviceaccounts:", claims.namespace_)};
  if (claims.pod && !claims.pod->name.empty() && !claims.pod->uid.empty()) {
    user.extra["authentication.kubernetes.io/pod-name"] = {claims.pod->name};
    user.extra["authentication.kubernetes.io/pod-uid"] = {claims.pod->uid};
  }
  if (!claims.id.empty()) {
    user.extra["authentication.kubernetes.io/credential-id"] = {
        StrCat("JTI=", claims.id)};
  }
  if (claims.node && !claims.node->name.empty()) {
    user.extra["authentication.kubernetes.io/node-name"] = {claims.node->name};
    if (!claims.node->uid.empty()) {
      user.extra["authentication.kubernetes.io/node-uid"] = {claims.node->uid};
    }
  }
  return user;
}

}  // namespace draplane::auth
