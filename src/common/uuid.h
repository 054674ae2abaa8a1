// UUIDs in their text form (8-4-4-4-12 lower-case hex digits), as
// upstream's github.com/google/uuid writes them.
#ifndef DRAPLANE_COMMON_UUID_H_
#define DRAPLANE_COMMON_UUID_H_

#include <cstdint>
#include <string>

namespace draplane {

// The UUID whose 128 bits are `hi` then `lo`, as text.
std::string FormatUuid(uint64_t hi, uint64_t lo);

// A random (version 4, RFC 4122 variant) UUID, as uuid.NewRandom: object
// UIDs, audit IDs, token IDs. From a per-thread generator seeded by
// std::random_device: unique, not secret.
std::string NewRandomUuid();

}  // namespace draplane

#endif  // DRAPLANE_COMMON_UUID_H_
