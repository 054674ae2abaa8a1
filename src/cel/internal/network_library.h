// The Kubernetes IP and CIDR CEL libraries (k8s.io/apiserver v0.37.2
// pkg/cel/library/ip.go and cidr.go, values pkg/cel/ip.go and cidr.go,
// runtime costs library/cost.go), in the Kubernetes base environment since
// 1.30 and so available to DRA selectors.
//
// Addresses and prefixes follow Go's net/netip (as of Go 1.26) exactly:
// the accepted text, the canonical text (RFC 5952 as Addr.String prints it)
// and the error messages. On top of netip the libraries reject IPv6 zones
// and IPv4-mapped IPv6 addresses ("::ffff:1.2.3.4"), in ip() and cidr()
// alike.
//
// CEL values are opaque values of type "net.IP" and "net.CIDR". `==`
// compares them as Go's `==` on netip.Addr / netip.Prefix does: a CIDR's
// address is compared unmasked, so cidr('10.0.0.1/8') != cidr('10.0.0.0/8').
// There are no ordering operators on them.
//
// This is not cel-go's ext.Network library (same function and type names):
// that one also has `cidr.isMask()`, returns false rather than an error for
// `ip == <other type>`, and words its CIDR parse errors differently.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_NETWORK_LIBRARY_H_
#define DRAPLANE_CEL_INTERNAL_NETWORK_LIBRARY_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

inline constexpr char kIPTypeName[] = "net.IP";
inline constexpr char kCIDRTypeName[] = "net.CIDR";

// An IPv4 or IPv6 address, as a valid Go netip.Addr. An IPv4-mapped IPv6
// address ("::ffff:1.2.3.4") is an IPv6 address, distinct from the IPv4
// one, as in netip.
struct IPAddress {
  bool is4 = false;
  // Network byte order. IPv4 addresses use bytes[0..3]; the rest is zero.
  std::array<uint8_t, 16> bytes{};
  // IPv6 scoped addressing zone ("eth0" in "fe80::1%eth0"); empty for none
  // and always for IPv4.
  std::string zone;

  // 32 or 128.
  int BitLen() const { return is4 ? 32 : 128; }
  // Whether this is an IPv6 address in ::ffff:0:0/96 (netip Is4In6).
  bool Is4In6() const;
  // The netip classifications (IPv4-mapped addresses classified as their
  // IPv4 address, as netip does).
  bool IsUnspecified() const;
  bool IsLoopback() const;
  bool IsMulticast() const;
  bool IsLinkLocalMulticast() const;
  bool IsLinkLocalUnicast() const;
  bool IsGlobalUnicast() const;

  friend bool operator==(const IPAddress& a, const IPAddress& b) = default;
};

// Go netip.ParseAddr: dotted decimal IPv4 (four fields, no leading zeros),
// or IPv6 with optional "::", optional embedded IPv4 in the last 32 bits
// and an optional non-empty "%zone". Errors are kInvalidArgument with Go's
// message, e.g. `ParseAddr("1.2.3.04"): IPv4 field has octet with leading
// zero`.
absl::StatusOr<IPAddress> ParseIPAddress(std::string_view text);

// Go netip.Addr.String: dotted decimal for IPv4; for IPv6 lower-case hex
// groups without leading zeros, the longest run (first on a tie) of two or
// more zero groups written "::", "::ffff:a.b.c.d" for IPv4-mapped addresses
// and "%zone" appended.
std::string FormatIPAddress(const IPAddress& ip);

// A network prefix as a valid Go netip.Prefix: an address without zone and
// a length 0..BitLen(). The address keeps its bits past the prefix length
// unless masked.
struct IPPrefix {
  IPAddress addr;
  int bits = 0;

  // netip Prefix.Masked: the address with all but the first `bits` bits
  // cleared.
  IPPrefix Masked() const;
  // netip Prefix.Contains: same family and equal in the first `bits` bits
  // (an address with a zone is never contained).
  bool Contains(const IPAddress& ip) const;
  // netip Prefix.Overlaps: same family and the prefixes share an address.
  bool Overlaps(const IPPrefix& other) const;

  friend bool operator==(const IPPrefix& a, const IPPrefix& b) = default;
};

// Go netip.ParsePrefix: "<address>/<bits>" split at the last '/', the
// address as ParseIPAddress without a zone, the length in decimal without
// sign or leading zeros. Errors are kInvalidArgument with Go's message, e.g.
// `netip.ParsePrefix("1.2.3.4/33"): prefix length out of range`.
absl::StatusOr<IPPrefix> ParseIPPrefix(std::string_view text);

// Go netip.Prefix.String: "<address>/<bits>".
std::string FormatIPPrefix(const IPPrefix& prefix);

// CEL values holding `ip` / `prefix`.
Value IPValue(IPAddress ip);
Value CIDRValue(IPPrefix prefix);

// The wrapped value, or nullptr when `value` is not of that opaque type.
const IPAddress* AsIP(const Value& value);
const IPPrefix* AsCIDR(const Value& value);

// Declares the type name net.IP and registers ip(string), isIP,
// ip.isCanonical, family, isUnspecified, isLoopback, isLinkLocalMulticast,
// isLinkLocalUnicast, isGlobalUnicast and string(net.IP), with the costs
// Kubernetes' CostEstimator charges (parsing ceil(0.1 * length),
// ip.isCanonical ceil(0.2 * length), accessors and string() 1).
absl::Status RegisterIPFunctions(FunctionRegistry* registry);

// Declares the type names net.CIDR and net.IP and registers cidr(string),
// isCIDR, containsIP (net.IP or string), containsCIDR (net.CIDR or string),
// ip() on a CIDR, masked, prefixLength and string(net.CIDR), with
// Kubernetes' costs (see network_library.cc).
absl::Status RegisterCIDRFunctions(FunctionRegistry* registry);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_NETWORK_LIBRARY_H_
