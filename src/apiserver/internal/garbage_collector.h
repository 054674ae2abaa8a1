// The built-in controllers of the standalone server that upstream runs in
// kube-controller-manager but that deletion semantics depend on:
//  - the garbage collector: dependents whose owners (ownerReferences) are
//    all gone are deleted (background propagation); an owner deleted with
//    propagationPolicy=Foreground (finalizer "foregroundDeletion") waits
//    until its dependents are gone; with Orphan (finalizer "orphan") its
//    dependents lose their ownerReference to it and are kept;
//  - the namespace finalizer: a terminating namespace's contents are
//    deleted, then the namespace.
// Each pass lists the whole store but looks only at objects that changed
// since the previous pass (a summary of each object is kept between
// passes); passes are idempotent (a pass can be interrupted).
#ifndef DRAPLANE_APISERVER_INTERNAL_GARBAGE_COLLECTOR_H_
#define DRAPLANE_APISERVER_INTERNAL_GARBAGE_COLLECTOR_H_

#include "apiserver/internal/registry.h"

namespace draplane::apiserver::internal {

inline constexpr char kForegroundFinalizer[] = "foregroundDeletion";
inline constexpr char kOrphanFinalizer[] = "orphan";

// One garbage-collection pass; returns the number of objects changed.
int CollectGarbage(Registry& registry);

// One namespace-finalizer pass; returns the number of objects changed.
int FinalizeNamespaces(Registry& registry);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_GARBAGE_COLLECTOR_H_
