package scenario

import (
	"fmt"
	"sort"

	"k8s.io/dynamic-resource-allocation/structured"
)

// featureFields maps the feature names accepted in spec.features (the field
// names of structured.Features) to setters.
var featureFields = map[string]func(*structured.Features){
	"AdminAccess":             func(f *structured.Features) { f.AdminAccess = true },
	"CompatibilityGroups":     func(f *structured.Features) { f.CompatibilityGroups = true },
	"ConsumableCapacity":      func(f *structured.Features) { f.ConsumableCapacity = true },
	"DerivedAttributes":       func(f *structured.Features) { f.DerivedAttributes = true },
	"DeviceBindingAndStatus":  func(f *structured.Features) { f.DeviceBindingAndStatus = true },
	"DeviceTaints":            func(f *structured.Features) { f.DeviceTaints = true },
	"FractionalCapacityRange": func(f *structured.Features) { f.FractionalCapacityRange = true },
	"ListTypeAttributes":      func(f *structured.Features) { f.ListTypeAttributes = true },
	"OptionalNodeOperations":  func(f *structured.Features) { f.OptionalNodeOperations = true },
	"PartitionableDevices":    func(f *structured.Features) { f.PartitionableDevices = true },
	"PrioritizedList":         func(f *structured.Features) { f.PrioritizedList = true },
}

// DefaultFeatureNames are the allocator features kube-scheduler 1.37 enables
// with default feature gates: everything GA or beta-on.
//
//	AdminAccess             DRAAdminAccess GA 1.36
//	PrioritizedList         DRAPrioritizedList GA 1.36
//	PartitionableDevices    DRAPartitionableDevices beta (on) 1.36
//	DeviceTaints            DRADeviceTaints GA 1.37 (DRADeviceTaintRules GA 1.37)
//	DeviceBindingAndStatus  DRADeviceBindingConditions beta (on) 1.36 && DRAResourceClaimDeviceStatus GA 1.37
//	ConsumableCapacity      DRAConsumableCapacity beta (on) 1.36
//	FractionalCapacityRange DRAFractionalCapacityRange beta (on) 1.37
//
// Alpha features (ListTypeAttributes, OptionalNodeOperations,
// DerivedAttributes, CompatibilityGroups) are off.
func DefaultFeatureNames() []string {
	return []string{
		"AdminAccess",
		"ConsumableCapacity",
		"DeviceBindingAndStatus",
		"DeviceTaints",
		"FractionalCapacityRange",
		"PartitionableDevices",
		"PrioritizedList",
	}
}

// AllFeatureNames returns every feature name spec.features accepts, sorted.
func AllFeatureNames() []string {
	names := make([]string, 0, len(featureFields))
	for name := range featureFields {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// FeaturesFromNames turns spec.features into allocator features.
func FeaturesFromNames(names []string) (structured.Features, error) {
	var f structured.Features
	seen := map[string]bool{}
	for _, name := range names {
		set, ok := featureFields[name]
		if !ok {
			return f, fmt.Errorf("unknown feature %q (known: %v)", name, AllFeatureNames())
		}
		if seen[name] {
			return f, fmt.Errorf("feature %q listed twice", name)
		}
		seen[name] = true
		set(&f)
	}
	return f, nil
}
