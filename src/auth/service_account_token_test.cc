#include "auth/service_account_token.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace draplane::auth {
namespace {

// A fixed RSA 2048 key. kTestKeyId is its kid as computed with the
// openssl CLI: openssl pkey -pubin -outform DER | openssl dgst -sha256
// -binary | base64 | tr '+/' '-_' | tr -d '='.
constexpr char kTestPrivateKey[] = R"(-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCf6AS4V6j59FMD
OLeuzXGyROlX4vB7f06Af43AuMvoCiMcvGntEJlSCb4gIR7n5bbgIIP38fTM/oQ1
CSbYfhQ0oODvAfjtY5OGyp6A240hJx/3bamySEolpc5q981/vNAB4zJ35hr5xf3s
/qg01Wq+ZolnwBlWJScEl4kXPz3nvBmiXOmA6R1mbZ1y1ngHk3xPmUmv+H8YNBmF
PJUKjVxS4CK8POHVVhoTu1OR320ZjAj0u9KoGc5hxhWkfNojVv+82pw72+HZEFYg
NK0n8K6pMFl5xfkEHDZeg6VXsfGSw2Gtr6VjlvDmjczO8IuKXmL9zWUIQK5DbxMq
olNEZKN3AgMBAAECggEAPHVCV5pZGow8WKL4m+A0RRUV7nMwvlivSxku9LdJ7QTs
KqC4IfgdJ+3kEwzCvSXWo13X14aFKn5uaQj5RXBB3nYXJXam8cYs0JFKJWkdLnQ2
+1tchjobwqkyZrIjYdD3Ckem3LtE5rvrmk/cNAGe1rc461+vlKj+XBeZLw9rrfIQ
47rvijtco/QdSI3esv2G6/AL1xnVXypqjvVKSBIXYqdSPbw5kd6Q+NHv/E3T/hBt
lOhqJKMdI3fV5r63Z/rEuiiZpTEj8k8gM70Yasr+NBxdnR30PNFl2kJ1ae06nvyu
EBcCcgvNNUuPcmS7lPjN9dnXNwcatmYe4zMGu7yZnQKBgQDQqCtZQH1yXWOywe3Y
XDJzna5WzCAKRMbYeZi2NqDnglW5+FW5lCUzd3e4EMJ1sMVKhSpnvTfK87tgJsdp
BKL2djTqL8WX1SyztHZqZPAbK/i6qHm+fcMdNe7xFD8rbaqxx6uYTUW0Mt10B0fw
itOzrBwUQkQOc2IBfmec4PtX0wKBgQDEMCwq6bwdrl3VDMZvHNfCfhhZDUnoQUdu
5JlLKm+kNpKiXOx4PDsAZNi+xMAfyoy3Hhvr9TeHpEW4CCJ4Ei9PXFcQbuEjGMiz
NLLo9LvpqyfeHSlbI36W9CUlyEzTZeXcT50cy7NOfee/Rj/ENWa2DGqkV2UNjzZI
o27UoZVDTQKBgQCsi9TFCspyL35JjYsVFzD1YNiRmF2KgFN7IhrB26z1pVck4ZJq
U3Lr+4g540obruGHfVWS0et4XlN98LOISbhFXXzmiDi7FSLRPJOL6gqQPa2DFd0P
RMp7tmTwYVDXpem4+CgTWxsgJ8vvrjG0XekxNEtICYBj/tB18cTW+0l91wKBgGFz
tFzUodb0iDOOFvuWji5USG/jw/SUiJEzCFpoB/DAEvKHyganlH9LmMaaIP0pteA4
GpKIyj6cgO07TTPrhIidS7oj+b1fUEKESOKivr0Bgdo5DhPxe64sNE+iQVc45Icd
HOPy42x36if/Eym5hP2lCUv9BXtIyiQm2qTQZr55AoGBAMdIrcpnjuKrDszJIENz
+8lLzspHTRzF97XcgKdjpNtM+32d869FxvRo933H3jFtVRELoyKAcVgUegiDmEWP
I86TLGV08S20+WbcnG6I5usUR09/S2eq9n01JjMdLurUEYYfSjgfVL3L8w3Yb/t/
KF/89hA2upyWlXWRzkgvRBKX
-----END PRIVATE KEY-----
)";
constexpr char kTestPublicKey[] = R"(-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAn+gEuFeo+fRTAzi3rs1x
skTpV+Lwe39OgH+NwLjL6AojHLxp7RCZUgm+ICEe5+W24CCD9/H0zP6ENQkm2H4U
NKDg7wH47WOThsqegNuNIScf922pskhKJaXOavfNf7zQAeMyd+Ya+cX97P6oNNVq
vmaJZ8AZViUnBJeJFz8957wZolzpgOkdZm2dctZ4B5N8T5lJr/h/GDQZhTyVCo1c
UuAivDzh1VYaE7tTkd9tGYwI9LvSqBnOYcYVpHzaI1b/vNqcO9vh2RBWIDStJ/Cu
qTBZecX5BBw2XoOlV7HxksNhra+lY5bw5o3MzvCLil5i/c1lCECuQ28TKqJTRGSj
dwIDAQAB
-----END PUBLIC KEY-----
)";
constexpr char kTestKeyId[] = "B2zr5DsCM1wRIRahlJO6tlyAKaW3UJtzX-kZtSXbkZU";
// A fixed ECDSA P-256 key in SEC1 form.
constexpr char kTestEcPrivateKey[] = R"(-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIH9FQXDgiKACoQvH7QEhJnN98Who0Vk13VijKmZ2NhPSoAoGCCqGSM49
AwEHoUQDQgAElji0GE78luc4ZkzQw1TR5wx1IYpaPwTDjyvo1CxKzvirPrZFbkaF
A5byJkOYwdYEHIKSAsP35T0p+MPMtg6Mdw==
-----END EC PRIVATE KEY-----
)";

// The token that go-jose v2.6.3 writes (jwt.Signed(...).Claims(private)
// .Claims(public).Claims(issuer), upstream's GenerateToken) for
// GoldenClaims() with kTestPrivateKey. RS256 is deterministic, so Sign
// must produce exactly these bytes.
constexpr char kGoJoseToken[] =
    "eyJhbGciOiJSUzI1NiIsImtpZCI6IkIyenI1RHNDTTF3UklSYWhsSk82dGx5QUthVzNVSn"
    "R6WC1rWnRTWGJrWlUifQ.eyJhdWQiOlsiaHR0cHM6Ly9rdWJlcm5ldGVzLmRlZmF1bHQuc"
    "3ZjIiwiYVx1MDAzY2JcdTAwMjZjIl0sImV4cCI6MTcwMDAwNzIwMCwiaWF0IjoxNzAwMDA"
    "wMDAwLCJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb"
    "2NhbCIsImp0aSI6IjBiN2Q3YjJlLTFkOGMtNGYwYS05YzU1LTVlMGY1ZjhlOGExMSIsImt"
    "1YmVybmV0ZXMuaW8iOnsibmFtZXNwYWNlIjoibnMxIiwibm9kZSI6eyJuYW1lIjoibm9kZ"
    "TEiLCJ1aWQiOiJub2RlLXVpZCJ9LCJwb2QiOnsibmFtZSI6InBvZDEiLCJ1aWQiOiJwb2Q"
    "tdWlkIn0sInNlcnZpY2VhY2NvdW50Ijp7Im5hbWUiOiJzYTEiLCJ1aWQiOiJzYS11aWQif"
    "Swid2FybmFmdGVyIjoxNzAwMDAzNjAwfSwibmJmIjoxNzAwMDAwMDAwLCJzdWIiOiJzeXN"
    "0ZW06c2VydmljZWFjY291bnQ6bnMxOnNhMSJ9.dcYCmvGPmzcBxNs3i-ZrbMdRYST8kaaA"
    "MYbUaWbf8rAjLJEc4AzGpHghQS2um9-8kUXJq4mDb2c-qUrOppkawELtPVMVuf_R4E2XfQ"
    "Q-lX0kGqluiHscm94neRdGPwpuARhdA5ymfH8qYcuSdmio0EmfNQTPvBCHz5OTkYauN3g_"
    "FGgyr7tmCfArvnvWiqg7qEu9CqwSnlk1_aKNIoaCae1LrpwjGJDcfCABuY_nltkQNfzFBL"
    "IcL8Z0ZWtbD_bBYAzoOKba8BrEYlotkAaU4XbPMC2WV8TkF1MDUjFwQ-S_7jIbBaOlzxUt"
    "6mc2HMBCQe4HNF1X99zJmumxtHdfQg";
// go-jose's JSONWebKey.MarshalJSON of kTestPublicKey as upstream's JWKS
// builds it.
constexpr char kGoJoseJwk[] =
    "{\"use\":\"sig\",\"kty\":\"RSA\",\"kid\":\"B2zr5DsCM1wRIRahlJO6tlyAKaW"
    "3UJtzX-kZtSXbkZU\",\"alg\":\"RS256\",\"n\":\"n-gEuFeo-fRTAzi3rs1xskTpV"
    "-Lwe39OgH-NwLjL6AojHLxp7RCZUgm-ICEe5-W24CCD9_H0zP6ENQkm2H4UNKDg7wH47WO"
    "ThsqegNuNIScf922pskhKJaXOavfNf7zQAeMyd-Ya-cX97P6oNNVqvmaJZ8AZViUnBJeJF"
    "z8957wZolzpgOkdZm2dctZ4B5N8T5lJr_h_GDQZhTyVCo1cUuAivDzh1VYaE7tTkd9tGYw"
    "I9LvSqBnOYcYVpHzaI1b_vNqcO9vh2RBWIDStJ_CuqTBZecX5BBw2XoOlV7HxksNhra-lY"
    "5bw5o3MzvCLil5i_c1lCECuQ28TKqJTRGSjdw\",\"e\":\"AQAB\"}";

constexpr char kIssuer[] = "https://kubernetes.default.svc.cluster.local";
constexpr char kApiAudience[] = "https://kubernetes.default.svc";
const absl::Time kIssuedAt = absl::FromUnixSeconds(1700000000);

ServiceAccountClaims GoldenClaims() {
  ServiceAccountClaims c;
  c.issuer = kIssuer;
  c.audiences = {kApiAudience, "a<b&c"};
  c.issued_at = kIssuedAt;
  c.not_before = kIssuedAt;
  c.expiry = kIssuedAt + absl::Hours(2);
  c.id = "0b7d7b2e-1d8c-4f0a-9c55-5e0f5f8e8a11";
  c.namespace_ = "ns1";
  c.service_account = {"sa1", "sa-uid"};
  c.pod = TokenObjectRef{"pod1", "pod-uid"};
  c.node = TokenObjectRef{"node1", "node-uid"};
  c.warn_after = kIssuedAt + absl::Hours(1);
  return c;
}

ServiceAccountClaims SimpleClaims() {
  ServiceAccountClaims c;
  c.issuer = kIssuer;
  c.audiences = {kApiAudience};
  c.issued_at = kIssuedAt;
  c.not_before = kIssuedAt;
  c.expiry = kIssuedAt + absl::Hours(1);
  c.namespace_ = "default";
  c.service_account = {"builder", "uid-1"};
  return c;
}

TokenSigner TestSigner() {
  auto signer = TokenSigner::Create(kTestPrivateKey);
  EXPECT_TRUE(signer.ok()) << signer.status();
  return *signer;
}

TokenVerifier TestVerifier(const std::vector<std::string>& keys = {
                               kTestPublicKey}) {
  auto verifier = TokenVerifier::Create(keys, {kIssuer}, {kApiAudience});
  EXPECT_TRUE(verifier.ok()) << verifier.status();
  return *verifier;
}

std::string Sign(const ServiceAccountClaims& c) {
  auto token = TestSigner().Sign(c);
  EXPECT_TRUE(token.ok()) << token.status();
  return token.value_or("");
}

// A second RSA key, generated once.
const std::string& OtherPrivateKey() {
  static const std::string* key = [] {
    auto pem = NewServiceAccountSigningKey();
    EXPECT_TRUE(pem.ok()) << pem.status();
    return new std::string(pem.value_or(""));
  }();
  return *key;
}

std::string Base64Url(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  int bits = 0;
  unsigned acc = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

// `token` with its payload replaced by `payload_json` (signature kept).
std::string WithPayload(const std::string& token, std::string_view payload) {
  const size_t dot1 = token.find('.');
  const size_t dot2 = token.find('.', dot1 + 1);
  return token.substr(0, dot1 + 1) + Base64Url(payload) + token.substr(dot2);
}

// A compact JWS of `header` and `payload` (JSON texts) signed with
// kTestPrivateKey by OpenSSL directly: RSASSA-PKCS1-v1_5, or PSS with
// `pss`, over `md`. For tokens the signer cannot write.
std::string SignRaw(std::string_view header, std::string_view payload,
                    const EVP_MD* md = EVP_sha256(), bool pss = false) {
  const std::string input = Base64Url(header) + "." + Base64Url(payload);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(kTestPrivateKey, -1), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr),
      EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                              EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;
  EXPECT_EQ(EVP_DigestSignInit(ctx.get(), &pctx, md, nullptr, pkey.get()), 1);
  if (pss) {
    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
  }
  size_t len = 0;
  const auto* in = reinterpret_cast<const unsigned char*>(input.data());
  EXPECT_EQ(EVP_DigestSign(ctx.get(), nullptr, &len, in, input.size()), 1);
  std::string sig(len, '\0');
  EXPECT_EQ(
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()),
                     &len, in, input.size()),
      1);
  sig.resize(len);
  return input + "." + Base64Url(sig);
}

constexpr char kHeader[] =
    R"({"alg":"RS256","kid":"B2zr5DsCM1wRIRahlJO6tlyAKaW3UJtzX-kZtSXbkZU"})";

std::string Payload(std::string_view members) {
  return std::string(
             R"({"iss":"https://kubernetes.default.svc.cluster.local")") +
         std::string(members) + "}";
}

TEST(ServiceAccountTokenTest, KeyIdIsUpstreamsKeyIdFromPublicKey) {
  EXPECT_EQ(KeyId(kTestPublicKey).value_or(""), kTestKeyId);
  // The private key's kid is its public key's.
  EXPECT_EQ(KeyId(kTestPrivateKey).value_or(""), kTestKeyId);
  EXPECT_EQ(TestSigner().key_id(), kTestKeyId);
  EXPECT_EQ(TestSigner().algorithm(), "RS256");
  EXPECT_FALSE(KeyId("not a key").ok());
}

TEST(ServiceAccountTokenTest, PublicKeyOfAPrivateKey) {
  auto pub = PublicKeyOf(kTestPrivateKey);
  ASSERT_TRUE(pub.ok()) << pub.status();
  EXPECT_EQ(*pub, std::string(kTestPublicKey));
  EXPECT_EQ(PublicKeyOf(kTestPublicKey).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ServiceAccountTokenTest, NewKeyIsPkcs8Rsa2048) {
  const std::string& pem = OtherPrivateKey();
  EXPECT_EQ(pem.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
  auto pub = PublicKeyOf(pem);
  ASSERT_TRUE(pub.ok());
  EXPECT_EQ(pub->rfind("-----BEGIN PUBLIC KEY-----", 0), 0u);
  auto verifier = TokenVerifier::Create({*pub}, {kIssuer}, {});
  ASSERT_TRUE(verifier.ok());
  // An RSA 2048 modulus is 256 bytes: 342 base64url characters.
  const std::string jwks = verifier->Jwks();
  const size_t n = jwks.find(R"("n":")");
  ASSERT_NE(n, std::string::npos);
  EXPECT_EQ(jwks.find('"', n + 5) - (n + 5), 342u);
  EXPECT_NE(jwks.find(R"("e":"AQAB")"), std::string::npos);
}

TEST(ServiceAccountTokenTest, SignWritesGoJosesBytes) {
  EXPECT_EQ(Sign(GoldenClaims()), kGoJoseToken);
}

TEST(ServiceAccountTokenTest, RoundTripKeepsEveryClaim) {
  ServiceAccountClaims in = GoldenClaims();
  in.pod.reset();
  in.secret = TokenObjectRef{"secret1", "secret-uid"};
  auto out = TestVerifier().Verify(Sign(in), kIssuedAt + absl::Minutes(5));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->issuer, in.issuer);
  EXPECT_EQ(out->audiences, in.audiences);
  EXPECT_EQ(out->issued_at, in.issued_at);
  EXPECT_EQ(out->not_before, in.not_before);
  EXPECT_EQ(out->expiry, in.expiry);
  EXPECT_EQ(out->id, in.id);
  EXPECT_EQ(out->namespace_, "ns1");
  EXPECT_EQ(out->service_account.name, "sa1");
  EXPECT_EQ(out->service_account.uid, "sa-uid");
  EXPECT_FALSE(out->pod.has_value());
  ASSERT_TRUE(out->secret.has_value());
  EXPECT_EQ(out->secret->name, "secret1");
  EXPECT_EQ(out->secret->uid, "secret-uid");
  ASSERT_TRUE(out->node.has_value());
  EXPECT_EQ(out->node->name, "node1");
  EXPECT_EQ(out->node->uid, "node-uid");
  EXPECT_EQ(out->warn_after, in.warn_after);
}

TEST(ServiceAccountTokenTest, VerifiesGoJosesToken) {
  auto out = TestVerifier().Verify(kGoJoseToken, kIssuedAt);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->audiences, (std::vector<std::string>{kApiAudience, "a<b&c"}));
  ASSERT_TRUE(out->pod.has_value());
  EXPECT_EQ(out->pod->uid, "pod-uid");
}

TEST(ServiceAccountTokenTest, PodAndNodeClaimsBecomeUserExtra) {
  auto claims = TestVerifier().Verify(kGoJoseToken, kIssuedAt);
  ASSERT_TRUE(claims.ok()) << claims.status();
  UserInfo user = ServiceAccountUser(*claims);
  EXPECT_EQ(user.name, "system:serviceaccount:ns1:sa1");
  EXPECT_EQ(user.uid, "sa-uid");
  EXPECT_EQ(user.groups,
            (std::vector<std::string>{"system:serviceaccounts",
                                      "system:serviceaccounts:ns1"}));
  using Extra = std::map<std::string, std::vector<std::string>>;
  EXPECT_EQ(user.extra,
            (Extra{{"authentication.kubernetes.io/credential-id",
                    {"JTI=0b7d7b2e-1d8c-4f0a-9c55-5e0f5f8e8a11"}},
                   {"authentication.kubernetes.io/node-name", {"node1"}},
                   {"authentication.kubernetes.io/node-uid", {"node-uid"}},
                   {"authentication.kubernetes.io/pod-name", {"pod1"}},
                   {"authentication.kubernetes.io/pod-uid", {"pod-uid"}}}));
}

TEST(ServiceAccountTokenTest, UserOfAnUnboundTokenHasNoExtra) {
  UserInfo user = ServiceAccountUser(SimpleClaims());
  EXPECT_EQ(user.name, "system:serviceaccount:default:builder");
  EXPECT_TRUE(user.extra.empty());
  // A pod without a uid is no pod-name/pod-uid extra (upstream needs both).
  ServiceAccountClaims c = SimpleClaims();
  c.pod = TokenObjectRef{"p", ""};
  EXPECT_TRUE(ServiceAccountUser(c).extra.empty());
}

TEST(ServiceAccountTokenTest, TokenOfAnotherKeyIsRefused) {
  auto other = TokenSigner::Create(OtherPrivateKey());
  ASSERT_TRUE(other.ok());
  auto token = other->Sign(SimpleClaims());
  ASSERT_TRUE(token.ok());
  // Its kid names no key.
  auto out = TestVerifier().Verify(*token, kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(out.status().message(), "invalid signature, no keys found");
  // Without a kid every key is tried, and none verifies.
  std::string no_kid =
      Base64Url(R"({"alg":"RS256"})") + token->substr(token->find('.'));
  out = TestVerifier().Verify(no_kid, kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(out.status().message(),
            "go-jose/go-jose: error in cryptographic primitive");
}

TEST(ServiceAccountTokenTest, TamperedPayloadIsRefused) {
  const std::string token = Sign(SimpleClaims());
  std::string payload =
      R"({"aud":["https://kubernetes.default.svc"],)"
      R"("iss":"https://kubernetes.default.svc.cluster.local",)"
      R"("kubernetes.io":{"namespace":"kube-system",)"
      R"("serviceaccount":{"name":"builder","uid":"uid-1"}},)"
      R"("sub":"system:serviceaccount:kube-system:builder"})";
  auto out = TestVerifier().Verify(WithPayload(token, payload), kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated);
  // A flipped signature bit too.
  std::string flipped = token;
  flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
  EXPECT_EQ(TestVerifier().Verify(flipped, kIssuedAt).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(ServiceAccountTokenTest, AlgorithmOtherThanTheKeysIsRefused) {
  const std::string token = Sign(SimpleClaims());
  const std::string rest = token.substr(token.find('.'));
  for (
      const char* header :
      {R"({"alg":"ES256","kid":"B2zr5DsCM1wRIRahlJO6tlyAKaW3UJtzX-kZtSXbkZU"})",
       R"({"alg":"HS256","kid":"B2zr5DsCM1wRIRahlJO6tlyAKaW3UJtzX-kZtSXbkZU"})",
       R"({"alg":"none","kid":"B2zr5DsCM1wRIRahlJO6tlyAKaW3UJtzX-kZtSXbkZU"})",
       R"({"alg":"RS256","crit":["exp"],"kid":"B2zr5DsCM1wRIRahlJO6tlyAKaW3UJtzX-kZtSXbkZU"})"}) {
    auto out = TestVerifier().Verify(Base64Url(header) + rest, kIssuedAt);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated)
        << header;
  }
}

TEST(ServiceAccountTokenTest, ExpiryHasOneMinuteOfLeeway) {
  const std::string token = Sign(SimpleClaims());
  const absl::Time exp = kIssuedAt + absl::Hours(1);
  EXPECT_TRUE(TestVerifier().Verify(token, exp + absl::Seconds(60)).ok());
  auto out = TestVerifier().Verify(token, exp + absl::Seconds(61));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(out.status().message(), "service account token has expired");
}

TEST(ServiceAccountTokenTest, NotBeforeAndIssuedAtInTheFuture) {
  ServiceAccountClaims c = SimpleClaims();
  c.issued_at = absl::InfinitePast();  // absent
  c.not_before = kIssuedAt + absl::Minutes(10);
  auto out = TestVerifier().Verify(Sign(c), kIssuedAt);
  EXPECT_EQ(out.status().message(), "service account token is not valid yet");
  EXPECT_TRUE(
      TestVerifier().Verify(Sign(c), c.not_before - absl::Seconds(60)).ok());

  c = SimpleClaims();
  c.not_before = absl::InfinitePast();
  c.issued_at = kIssuedAt + absl::Minutes(10);
  out = TestVerifier().Verify(Sign(c), kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(out.status().message(),
            "service account token is issued in the future");
}

TEST(ServiceAccountTokenTest, TokenWithoutTimesIsNotTimeChecked) {
  ServiceAccountClaims c = SimpleClaims();
  c.issued_at = absl::InfinitePast();
  c.not_before = absl::InfinitePast();
  c.expiry = absl::InfiniteFuture();
  const std::string token = Sign(c);
  EXPECT_EQ(token.find("exp"), std::string::npos);
  auto out = TestVerifier().Verify(token, absl::FromUnixSeconds(0));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->expiry, absl::InfiniteFuture());
}

TEST(ServiceAccountTokenTest, OtherIssuerIsNotMine) {
  ServiceAccountClaims c = SimpleClaims();
  c.issuer = "https://other.example";
  auto out = TestVerifier().Verify(Sign(c), kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  // Several issuers may be accepted (issuer migration).
  auto verifier = TokenVerifier::Create(
      {kTestPublicKey}, {kIssuer, "https://other.example"}, {kApiAudience});
  ASSERT_TRUE(verifier.ok());
  EXPECT_TRUE(verifier->Verify(Sign(c), kIssuedAt).ok());
}

TEST(ServiceAccountTokenTest, AudienceMustIntersect) {
  ServiceAccountClaims c = SimpleClaims();
  c.audiences = {"vault", "other"};
  auto out = TestVerifier().Verify(Sign(c), kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(out.status().message(),
            "token audiences [\"vault\" \"other\"] is invalid for the target "
            "audiences [\"https://kubernetes.default.svc\"]");
  c.audiences = {"vault", kApiAudience};
  EXPECT_TRUE(TestVerifier().Verify(Sign(c), kIssuedAt).ok());
  // A legacy token without audiences gets the implicit ones.
  c.audiences.clear();
  auto legacy = TestVerifier().Verify(Sign(c), kIssuedAt);
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_TRUE(legacy->audiences.empty());
  // Without implicit audiences any audience is accepted (upstream).
  auto any = TokenVerifier::Create({kTestPublicKey}, {kIssuer}, {});
  ASSERT_TRUE(any.ok());
  c.audiences = {"vault"};
  EXPECT_TRUE(any->Verify(Sign(c), kIssuedAt).ok());
}

TEST(ServiceAccountTokenTest, AudienceMayBeAString) {
  auto out = TestVerifier().Verify(
      SignRaw(kHeader, Payload(R"(,"aud":"https://kubernetes.default.svc")")),
      kIssuedAt);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->audiences, (std::vector<std::string>{kApiAudience}));
}

TEST(ServiceAccountTokenTest, OtherRsaAlgorithmsVerifyAsGoJoseDoes) {
  const std::string payload = Payload(R"(,"kubernetes.io":{"namespace":"n"})");
  EXPECT_TRUE(TestVerifier()
                  .Verify(SignRaw(R"({"alg":"RS512"})", payload, EVP_sha512()),
                          kIssuedAt)
                  .ok());
  EXPECT_TRUE(TestVerifier()
                  .Verify(SignRaw(R"({"alg":"PS256"})", payload, EVP_sha256(),
                                  /*pss=*/true),
                          kIssuedAt)
                  .ok());
  // The header's alg must match how it was signed.
  EXPECT_FALSE(TestVerifier()
                   .Verify(SignRaw(R"({"alg":"RS256"})", payload, EVP_sha512()),
                           kIssuedAt)
                   .ok());
  // A critical header is refused even when the signature is good.
  auto out = TestVerifier().Verify(
      SignRaw(R"({"alg":"RS256","crit":["exp"]})", payload), kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated);
}

TEST(ServiceAccountTokenTest, WrongClaimTypesAreRefused) {
  struct Case {
    const char* members;
    const char* message;
  };
  const Case cases[] = {
      {R"(,"exp":"soon")",
       "go-jose/go-jose/jwt: expected number value to unmarshal NumericDate"},
      {R"(,"aud":[1])",
       "go-jose/go-jose/jwt: expected string or array value to unmarshal to "
       "Audience"},
      {R"(,"sub":1)",
       "json: cannot unmarshal number into Go struct field Claims.sub of "
       "type string"},
      {R"(,"kubernetes.io":[])",
       "json: cannot unmarshal array into Go struct field "
       "privateClaims.kubernetes.io of type serviceaccount.kubernetes"},
      {R"(,"kubernetes.io":{"pod":"p"})",
       "json: cannot unmarshal string into Go struct field "
       "kubernetes.kubernetes.io.pod of type serviceaccount.ref"},
      {R"(,"kubernetes.io":{"serviceaccount":{"uid":true}})",
       "json: cannot unmarshal bool into Go struct field "
       "ref.kubernetes.io.serviceaccount.uid of type string"},
  };
  for (const Case& c : cases) {
    auto out =
        TestVerifier().Verify(SignRaw(kHeader, Payload(c.members)), kIssuedAt);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated)
        << c.members;
    EXPECT_EQ(out.status().message(), c.message) << c.members;
  }
}

TEST(ServiceAccountTokenTest, NumericDatesAreTruncatedFloats) {
  auto out = TestVerifier().Verify(
      SignRaw(kHeader, Payload(R"(,"exp":1700000100.9,"nbf":null)")),
      kIssuedAt);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->expiry, kIssuedAt + absl::Seconds(100));
  EXPECT_EQ(out->not_before, absl::InfinitePast());
  // Out of int64's range: Go's conversion gives the minimum, long expired.
  out = TestVerifier().Verify(SignRaw(kHeader, Payload(R"(,"exp":1e300)")),
                              kIssuedAt);
  EXPECT_EQ(out.status().message(), "service account token has expired");
}

TEST(ServiceAccountTokenTest, RotationKeepsOldKeysTokensValid) {
  auto old_signer = TokenSigner::Create(OtherPrivateKey());
  ASSERT_TRUE(old_signer.ok());
  auto old_token = old_signer->Sign(SimpleClaims());
  ASSERT_TRUE(old_token.ok());
  auto old_public = PublicKeyOf(OtherPrivateKey());
  ASSERT_TRUE(old_public.ok());
  // Both keys listed, the new one first: the kid picks the old one.
  TokenVerifier verifier = TestVerifier({kTestPublicKey, *old_public});
  EXPECT_TRUE(verifier.Verify(*old_token, kIssuedAt).ok());
  EXPECT_TRUE(verifier.Verify(Sign(SimpleClaims()), kIssuedAt).ok());
  // One entry may hold several PEM blocks.
  TokenVerifier joined =
      TestVerifier({std::string(kTestPublicKey) + *old_public});
  EXPECT_TRUE(joined.Verify(*old_token, kIssuedAt).ok());
  // Once the old key is dropped its tokens fail.
  EXPECT_EQ(TestVerifier().Verify(*old_token, kIssuedAt).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(ServiceAccountTokenTest, EcdsaKeysSignAndVerify) {
  auto signer = TokenSigner::Create(kTestEcPrivateKey);
  ASSERT_TRUE(signer.ok()) << signer.status();
  EXPECT_EQ(signer->algorithm(), "ES256");
  auto token = signer->Sign(SimpleClaims());
  ASSERT_TRUE(token.ok());
  auto pub = PublicKeyOf(kTestEcPrivateKey);
  ASSERT_TRUE(pub.ok());
  TokenVerifier verifier = TestVerifier({kTestPublicKey, *pub});
  EXPECT_TRUE(verifier.Verify(*token, kIssuedAt).ok());
  const std::string jwks = verifier.Jwks();
  EXPECT_NE(jwks.find(R"("kty":"EC","kid":")" + signer->key_id() +
                      R"(","crv":"P-256","alg":"ES256","x":")"),
            std::string::npos)
      << jwks;
  EXPECT_EQ(verifier.Algorithms(),
            (std::vector<std::string>{"ES256", "RS256"}));
}

TEST(ServiceAccountTokenTest, MalformedTokensAreNotMine) {
  TokenVerifier verifier = TestVerifier();
  const std::string token = Sign(SimpleClaims());
  const std::string header = token.substr(0, token.find('.'));
  const std::vector<std::string> malformed = {
      "",
      "abc",
      "a.b",
      token + ".x",
      "{\"iss\":\"x\"}",
      header + ".!!!." + "sig",
      header + "." + Base64Url("not json") + ".sig",
      header + "." + Base64Url("[1,2]") + ".sig",
      header + "." + Base64Url(R"({"iss":7})") + ".sig",
      "!!!" + token.substr(token.find('.')),
      Base64Url("[]") + token.substr(token.find('.')),
      Base64Url(R"({"alg":5})") + token.substr(token.find('.')),
      token.substr(0, token.rfind('.')) + ".a",
  };
  for (const std::string& t : malformed) {
    auto out = verifier.Verify(t, kIssuedAt);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound) << t;
  }
}

TEST(ServiceAccountTokenTest, HostileTokensDoNotCrash) {
  TokenVerifier verifier = TestVerifier();
  const std::string token = Sign(SimpleClaims());
  // Over 64 KiB.
  auto out = verifier.Verify(std::string(70000, 'a'), kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnauthenticated);
  // Deep nesting in the payload, signed or not.
  std::string deep(20000, '[');
  out = verifier.Verify(
      token.substr(0, token.find('.') + 1) + Base64Url(deep) + ".sig",
      kIssuedAt);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  out = verifier.Verify(
      SignRaw(kHeader, Payload(R"(,"x":)" + std::string(20000, '[') +
                               std::string(20000, ']'))),
      kIssuedAt);
  EXPECT_TRUE(out.ok()) << out.status();
  std::string many_dots(1000, '.');
  EXPECT_FALSE(verifier.Verify(many_dots, kIssuedAt).ok());
  std::string binary("\0\xff\x80.\0.\0", 7);
  EXPECT_FALSE(verifier.Verify(binary, kIssuedAt).ok());
}

TEST(ServiceAccountTokenTest, JwksIsGoJosesJwk) {
  EXPECT_EQ(TestVerifier().Jwks(),
            std::string(R"({"keys":[)") + kGoJoseJwk + "]}");
}

TEST(ServiceAccountTokenTest, OpenIdConfigurationIsUpstreams) {
  EXPECT_EQ(OpenIdConfiguration(kIssuer, "https://10.0.0.1:6443/openid/v1/jwks",
                                TestVerifier()),
            R"({"issuer":"https://kubernetes.default.svc.cluster.local",)"
            R"("jwks_uri":"https://10.0.0.1:6443/openid/v1/jwks",)"
            R"("response_types_supported":["id_token"],)"
            R"("subject_types_supported":["public"],)"
            R"("id_token_signing_alg_values_supported":["RS256"]})");
}

TEST(ServiceAccountTokenTest, CreateRefusesNoKeys) {
  EXPECT_EQ(TokenVerifier::Create({}, {kIssuer}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TokenVerifier::Create({"garbage"}, {kIssuer}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TokenSigner::Create(kTestPublicKey).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace draplane::auth
