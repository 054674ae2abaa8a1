// Command kubectl is the real kubectl, built from the published k8s.io
// modules at a pinned version (see go.mod; scripts/build-kubectl builds it
// to build/kubectl and stamps the version with -ldflags -X).
//
// It exists so that draplane's end-to-end tests drive the same kubectl on
// every machine: the kubectl found on PATH may be a different release, or
// the Google Cloud SDK "dispatcher" that picks a build by the server's
// /version and cannot be installed on a fresh machine.
//
// The body is kubernetes v1.32.4 cmd/kubectl/kubectl.go, unchanged.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"

	// Import to initialize client auth plugins.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		// Pretty-print the error and exit with an error.
		util.CheckErr(err)
	}
}
