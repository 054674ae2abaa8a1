// The built-in controllers of the standalone server that upstream runs in
// kube-controller-manager but that deletion semantics depend on:
//  - the garbage collector: dependents whose owners (ownerReferences) are
//    all gone are deleted (background propagation); an owner deleted with
//    propagationPolicy=Foreground (finalizer "foregroundDeletion") waits
//    until its dependents are gone; with Orphan (finalizer "orphan") its
//    dependents lose their ownerReference to it and are kept;
//  - the namespace finalizer: a terminating namespace's contents are
//    deleted, then the namespace;
//  - Event expiry, as kube-apiserver's --event-ttl (events are stored with
//    an etcd lease of that TTL from their last write): an Event not
//    written for the TTL is deleted. The time of an Event's last write is
//    when a pass first saw its current revision (after a restart: the
//    first pass), so an Event lives at most the TTL plus a pass.
// Each pass lists the whole store but looks only at objects that changed
// since the previous pass (a summary of each object is kept between
// passes); passes are idempotent (a pass can be interrupted).
#ifndef DRAPLANE_APISERVER_INTERNAL_GARBAGE_COLLECTOR_H_
#define DRAPLANE_APISERVER_INTERNAL_GARBAGE_COLLECTOR_H_

#include "absl/time/time.h"
#include "apiserver/internal/registry.h"

namespace draplane::apiserver::internal {

inline constexpr char kForegroundFinalizer[] = "foregroundDeletion";
inline constexpr char kOrphanFinalizer[] = "orphan";

// One garbage-collection pass; returns the number of objects changed.
int CollectGarbage(Registry& registry);

// One namespace-finalizer pass; returns the number of objects changed.
int FinalizeNamespaces(Registry& registry);

// Deletes the Events (core/v1 and events.k8s.io/v1) whose last write
// CollectGarbage saw more than `ttl` before the registry clock's now
// (with their resourceVersion as precondition: one written since stays);
// returns how many. Needs CollectGarbage's passes to see writes.
int ExpireEvents(Registry& registry, absl::Duration ttl);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_GARBAGE_COLLECTOR_H_
