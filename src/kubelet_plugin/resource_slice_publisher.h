// Publishes a node-local pool of ResourceSlices the way upstream's
// resourceslice controller does for kubelet plugins
// (nvidia-dra-driver.md §4): pool name = node name, one slice per desired
// spec, `metadata.generateName` "<index, 5 hex digits>-<driver>-<node>-"
// (the allocator tries slices in name order), owner = the Node,
// `spec.pool.generation` bumped whenever any slice of the pool changes and
// `resourceSliceCount` = number of slices; slices left over from a larger
// pool are deleted. Publishing what is already published writes nothing.
#ifndef DRAPLANE_KUBELET_PLUGIN_RESOURCE_SLICE_PUBLISHER_H_
#define DRAPLANE_KUBELET_PLUGIN_RESOURCE_SLICE_PUBLISHER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/resource_types.h"
#include "client/client.h"

namespace draplane::kubelet_plugin {

class ResourceSlicePublisher {
 public:
  // `api` must outlive the publisher. Not thread-safe: one caller.
  ResourceSlicePublisher(client::Client* api, std::string driver,
                         std::string node_name);

  // Makes the published pool equal `slices` (driver, nodeName and pool
  // fields are set here; generation and resourceSliceCount are ignored).
  // Returns the pool generation now published. API errors (validation
  // included) are returned as they are.
  absl::StatusOr<int64_t> Publish(std::vector<api::ResourceSliceSpec> slices);

  // Deletes every slice of this driver on this node (the kubelet does this
  // when a plugin stays away).
  absl::Status DeleteAll();

  // Slices written (created, updated, deleted) so far.
  int writes() const { return writes_; }

 private:
  absl::StatusOr<std::vector<api::ResourceSlice>> ListPool();

  client::Client* const api_;
  const std::string driver_;
  const std::string node_name_;
  int writes_ = 0;
};

}  // namespace draplane::kubelet_plugin

#endif  // DRAPLANE_KUBELET_PLUGIN_RESOURCE_SLICE_PUBLISHER_H_
