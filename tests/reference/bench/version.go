package bench

import "runtime/debug"

func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/dynamic-resource-allocation" {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}
