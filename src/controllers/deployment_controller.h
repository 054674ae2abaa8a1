// Standalone mode's Deployment controller (draplane server only: a real
// cluster has kube-controller-manager's). It keeps spec.replicas active
// pods from the pod template, without ReplicaSets: the pods are owned by
// the Deployment itself and named "<deployment>-<template hash>-<random>"
// with the pod-template-hash label. Scale up creates pods, scale down
// deletes the extras (pods of an older template first, then unscheduled
// ones, then the newest); a pod that finishes or is deleted is replaced.
// A template change is not rolled out: new pods use the new template,
// existing pods stay until deleted or scaled away. Status: replicas,
// updatedReplicas (current template), readyReplicas and availableReplicas
// (Ready=True), observedGeneration.
#ifndef DRAPLANE_CONTROLLERS_DEPLOYMENT_CONTROLLER_H_
#define DRAPLANE_CONTROLLERS_DEPLOYMENT_CONTROLLER_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "component_helpers/runnable.h"

namespace draplane::controllers {

class DeploymentController : public component_helpers::Runnable {
 public:
  // `client` outlives the controller.
  explicit DeploymentController(client::Client* client);
  ~DeploymentController() override;  // Stop()s
  DeploymentController(const DeploymentController&) = delete;
  DeploymentController& operator=(const DeploymentController&) = delete;

  absl::Status Start(absl::Duration sync_timeout =
                         component_helpers::kDefaultSyncTimeout) override;
  void Stop() override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_DEPLOYMENT_CONTROLLER_H_
